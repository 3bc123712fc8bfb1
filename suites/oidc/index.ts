/** OpenID Connect checks. */
import type { Check } from '../types.js';
import { oidcChecks } from './checks.js';

export const checks: Check[] = oidcChecks;
