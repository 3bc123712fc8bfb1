import type { Check } from '../types.js';
import { authorizeChecks } from './authorize.js';
import { clientAuthChecks } from './client-auth.js';
import { codeChecks } from './code.js';
import { passwordChecks } from './password.js';
import { pkceChecks } from './pkce.js';
import { refreshChecks } from './refresh.js';
import { registrationChecks } from './registration.js';
import { responseChecks } from './response.js';

export const checks: Check[] = [
  ...pkceChecks,
  ...authorizeChecks,
  ...codeChecks,
  ...clientAuthChecks,
  ...refreshChecks,
  ...passwordChecks,
  ...registrationChecks,
  ...responseChecks,
];
