/** Pagination checks: offset (headers, rows, limits, totals) and keyset (one pair per table row). */
import type { Check } from '../types.js';
import { keysetChecks } from './keyset-checks.js';
import { offsetChecks } from './offset-checks.js';

export const checks: Check[] = [...offsetChecks, ...keysetChecks];
