/** Token information and revocation checks. */
import type { Check } from '../types.js';
import { infoChecks } from './info.js';
import { revokeChecks } from './revoke.js';
import { wireChecks } from './wire.js';

export const checks: Check[] = [...infoChecks, ...revokeChecks, ...wireChecks];
