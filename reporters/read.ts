/** A saved JSON report read back (`report merge`, `run --rerun-failed`, `--from`, `--durations`). */
import { readFile } from 'node:fs/promises';
import { ReportError } from '../suites/errors.js';
import type { Report } from '../suites/report/model.js';
import { validateReport } from './schema.js';
import { MAX_JSON_DEPTH, tooDeep } from '../suites/report/json-depth.js';

/** The report in the file, checked against the schema; a ReportError (one line) when it is not one. */
export async function readReport(path: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ReportError(`cannot read the report ${path}: ${reason}`);
  }
  // Checked before parsing: the schema check and every renderer walk the report recursively.
  if (tooDeep(text)) throw new ReportError(`${path} nests deeper than ${MAX_JSON_DEPTH} levels: not a report`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReportError(`${path} is not JSON (write it with --report json=FILE)`);
  }
  const problems = validateReport(value);
  if (problems.length)
    throw new ReportError(
      `${path} is not an idp-conformance JSON report: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    );
  return value as Report;
}
