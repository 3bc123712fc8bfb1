/** CORS checks. */
import type { Check } from '../types.js';
import { corsChecks } from './checks.js';

export const checks: Check[] = corsChecks;
