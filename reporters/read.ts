/** A saved JSON report read back (`report merge`, `run --rerun-failed`, `--from`, `--durations`). */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ReportError } from '../suites/errors.js';
import type { Report } from '../suites/report/model.js';
import { firstReportProblem } from './schema.js';
import { MAX_JSON_DEPTH, tooDeep } from '../suites/report/json-depth.js';
import { packageVersion } from '../suites/runner/report.js';
import { quoted } from '../suites/report/words.js';

/**
 * The largest file read as a report: a whole run's is a few hundred KiB (evidence is cut where it
 * is recorded). A shard's artifact or a --from file is not read whole past it (a crafted multi-GB
 * file, /dev/zero), whatever its kind.
 */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;

/** A regular file's size; 0 for a pipe or a device (counted as read), or when stat fails (the read says why). */
const statedSize = (path: string) =>
  stat(path).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );

/** The file's text, read no further than MAX_REPORT_BYTES. */
async function boundedText(path: string): Promise<string> {
  const tooLarge = () =>
    new ReportError(`${path} is larger than ${MAX_REPORT_BYTES / (1024 * 1024)} MiB: not a report`);
  if ((await statedSize(path)) > MAX_REPORT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REPORT_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof ReportError) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ReportError(`cannot read the report ${path}: ${reason}`);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The report in the file, checked against the schema; a ReportError (one line) when it is not one.
 * Unless `anyVersion`, a report another version of the tool wrote is refused too: the JSON
 * report has no format version of its own (DESIGN.md: `version` is the tool's), and its check ids,
 * rules and seeds mean what that version's catalogue and checks made of them. `--durations` takes
 * any version: its times only weigh the slices.
 */
export async function readReport(path: string, options: { anyVersion?: boolean } = {}): Promise<Report> {
  const text = await boundedText(path);
  // Checked before parsing: the schema check and every renderer walk the report recursively.
  if (tooDeep(text)) throw new ReportError(`${path} nests deeper than ${MAX_JSON_DEPTH} levels: not a report`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReportError(`${path} is not JSON (write it with --report json=FILE)`);
  }
  // The first problem only: gathering them all costs time quadratic in their number (schema.ts).
  const problem = firstReportProblem(value);
  if (problem !== undefined) throw new ReportError(`${path} is not an idp-conformance JSON report: ${problem}`);
  const report = value as Report;
  if (!options.anyVersion && report.version !== packageVersion())
    throw new ReportError(
      `${path} was written by idp-conformance ${quoted(report.version)}, this is ${packageVersion()}: its checks and rules are that version's; run again to get a report of this one`,
    );
  return report;
}
