/** The JSON report: the contract of DESIGN.md and reporters/report.schema.json, pretty-printed. */
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import type { Report } from '../suites/report/model.js';
import { inertJson, wellFormed } from '../suites/report/inert.js';

/** Strings as Unicode text: no lone surrogate reaches a strict JSON reader. */
const unicodeOnly = (_key: string, value: unknown) => (typeof value === 'string' ? wellFormed(value) : value);

export function renderJson(report: Report): string {
  return `${inertJson(JSON.stringify(redact(boundReport(report)), unicodeOnly, 2))}\n`;
}
