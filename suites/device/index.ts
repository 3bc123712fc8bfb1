/** The device authorization grant checks. */
import type { Check } from '../types.js';
import { deviceChecks } from './checks.js';

export const checks: Check[] = deviceChecks;
