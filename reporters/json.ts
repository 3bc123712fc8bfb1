/** The JSON report: the contract of DESIGN.md and reporters/report.schema.json, pretty-printed. */
import { redact } from '../suites/report/redact.js';
import { boundReport } from '../suites/report/bounded.js';
import type { Report } from '../suites/report/model.js';
import { inertJson } from '../suites/report/inert.js';

export function renderJson(report: Report): string {
  return `${inertJson(JSON.stringify(redact(boundReport(report)), null, 2))}\n`;
}
