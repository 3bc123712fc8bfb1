/**
 * The reporters' public face: render a report in every format, write them to files, parse the
 * `--report kind=path,...` flag. Every renderer passes the report through `redact` first.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ReportError } from '../suites/errors.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { redact } from '../suites/report/redact.js';
import type { Report } from '../suites/report/model.js';

export { formatConsole, shouldColor, terminalSafe, type ConsoleOptions } from './console.js';
export { renderHtml, renderJson, renderJunit, renderMarkdown, redact };
export type { MarkdownOptions } from './markdown.js';
export {
  redactBody,
  redactExchange,
  redactHeaders,
  redactText,
  redactUrl,
  type RedactOptions,
} from '../suites/report/redact.js';
export { countStatuses, verdict, verdictLine } from './text.js';
export { reportSchema, validateReport } from './schema.js';
export type * from '../suites/report/model.js';

export type ReportKind = 'json' | 'junit' | 'html' | 'md';
export interface ReportTarget {
  kind: ReportKind;
  path: string;
}

const RENDERERS: Record<ReportKind, (report: Report) => string> = {
  json: renderJson,
  junit: renderJunit,
  html: renderHtml,
  md: renderMarkdown,
};
export const REPORT_KINDS = Object.keys(RENDERERS) as ReportKind[];

function isKind(kind: string): kind is ReportKind {
  return Object.hasOwn(RENDERERS, kind);
}

const kindList = () => `${REPORT_KINDS.slice(0, -1).join(', ')} or ${REPORT_KINDS[REPORT_KINDS.length - 1]}`;

/**
 * `json=reports/r.json,junit=out.xml` → [{kind: 'json', path: 'reports/r.json'}, ...].
 * Throws a ReportError (one line) for an empty spec, an unknown kind, a missing path, or one path
 * named twice.
 */
export function parseReportSpecs(text: string): ReportTarget[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0)
    throw new ReportError(`--report needs kind=path pairs such as json=reports/report.json (kinds: ${kindList()})`);
  const seen = new Set<string>();
  return items.map((item) => {
    const eq = item.indexOf('=');
    const kind = (eq < 0 ? item : item.slice(0, eq)).trim();
    const path = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!isKind(kind))
      throw new ReportError(`unknown report kind "${oneLine(kind)}" in "${oneLine(item)}" (expected ${kindList()})`);
    if (path === '') throw new ReportError(`report "${oneLine(item)}" has no path (write ${kind}=FILE)`);
    if (seen.has(path)) throw new ReportError(`report path "${oneLine(path)}" is named twice`);
    seen.add(path);
    return { kind, path };
  });
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** Renders each target's format and writes it, creating parent folders. */
export async function writeReports(report: Report, targets: readonly ReportTarget[]): Promise<void> {
  const safe = redact(report);
  await Promise.all(
    targets.map(async ({ kind, path }) => {
      if (!isKind(kind))
        throw new ReportError(`unknown report kind "${oneLine(String(kind))}" (expected ${kindList()})`);
      const content = RENDERERS[kind](safe);
      try {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content, 'utf8');
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new ReportError(`cannot write the ${kind} report to ${oneLine(path)}: ${oneLine(String(reason))}`);
      }
    }),
  );
}
