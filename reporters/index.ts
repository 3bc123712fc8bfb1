/**
 * The reporters' public face: render a report in every format, write them to files, parse the
 * `--report kind=path,...` flag. Every renderer passes the report through `redact` first.
 */
import { access, constants, mkdir, open, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { makeDirectories } from './directories.js';
import { basename, dirname, join, resolve } from 'node:path';
import type { CatalogueEntry } from '../spec/catalogue.js';
import { ReportError } from '../suites/errors.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderJunitRules } from './junit-rules.js';
import { renderMarkdown } from './markdown.js';
import { CATALOGUE_FORMATS } from './catalogue.js';
import { redact } from '../suites/report/redact.js';
import { own } from '../suites/shared/own.js';
import type { Report } from '../suites/report/model.js';

export { formatConsole, shouldColor, terminalSafe, type ConsoleOptions } from './console.js';
export { formatDiff, NOT_COVERED } from './diff.js';
export { renderHtml, renderJson, renderJunit, renderJunitRules, renderMarkdown, redact };
export { readReport } from './read.js';
export type { MarkdownOptions } from './markdown.js';
export {
  redactBody,
  redactExchange,
  redactHeaders,
  redactText,
  redactUrl,
  type RedactOptions,
} from '../suites/report/redact.js';
export { countStatuses, coverageText, mustCoverage, verdict, verdictHead, verdictLine } from './text.js';
export { reportSchema, validateReport } from './schema.js';
export type * from '../suites/report/model.js';

export type ReportKind = 'json' | 'junit' | 'junit-rules' | 'html' | 'md';
export interface ReportTarget {
  kind: ReportKind;
  path: string;
}

const RENDERERS: Record<ReportKind, (report: Report) => string> = {
  json: renderJson,
  junit: renderJunit,
  'junit-rules': renderJunitRules,
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
 * named twice or where the rule catalogue beside an HTML or Markdown report goes.
 */
/** The report kind a file's extension suggests. */
const KIND_OF_EXTENSION: Record<string, string> = { json: 'json', xml: 'junit', html: 'html', htm: 'html', md: 'md' };

export function parseReportSpecs(text: string): ReportTarget[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0)
    throw new ReportError(`--report needs kind=path pairs such as json=reports/report.json (kinds: ${kindList()})`);
  const seen = new Set<string>();
  const targets = items.map((item) => {
    const eq = item.indexOf('=');
    const kind = (eq < 0 ? item : item.slice(0, eq)).trim();
    const path = eq < 0 ? '' : item.slice(eq + 1).trim();
    // A path alone (`--report r.html`): the kind its extension suggests, as it should be written.
    const guessed = eq < 0 ? own(KIND_OF_EXTENSION, /\.([a-z]+)$/i.exec(kind)?.[1].toLowerCase() ?? '') : undefined;
    if (guessed)
      throw new ReportError(
        `report "${oneLine(item)}" names no kind: write kind=path, like ${guessed}=${oneLine(item)}`,
      );
    if (!isKind(kind))
      throw new ReportError(`unknown report kind "${oneLine(kind)}" in "${oneLine(item)}" (expected ${kindList()})`);
    if (path === '') throw new ReportError(`report "${oneLine(item)}" has no path (write ${kind}=FILE)`);
    if (seen.has(path)) throw new ReportError(`report path "${oneLine(path)}" is named twice`);
    seen.add(path);
    return { kind, path };
  });
  // Written after the reports, the catalogue would silently replace one named where it goes.
  const catalogues = new Set(
    targets.flatMap(({ kind, path }) => catalogueBeside(kind, path) ?? []).map((p) => resolve(p)),
  );
  const taken = targets.find(({ path }) => catalogues.has(resolve(path)));
  if (taken) throw new ReportError(`report path "${oneLine(taken.path)}" is where the rule catalogue goes`);
  return targets;
}

/** Where the rule catalogue is written beside a report of a kind whose rule ids link to it, if any. */
function catalogueBeside(kind: string, path: string): string | undefined {
  return kind === 'html' || kind === 'md' ? join(dirname(path), CATALOGUE_FORMATS[kind].file) : undefined;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** What a file-system error means, in words. */
const ERRNO_WORDS: Record<string, string> = {
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
};

/** `permission denied (EACCES)`: the words first, the code for searching. */
export function errnoWords(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code && ERRNO_WORDS[code]) return `${ERRNO_WORDS[code]} (${code})`;
  return code ?? (error as Error)?.message ?? String(error);
}

const cannotWrite = (kind: string, path: string, why: string) =>
  new ReportError(`cannot write the ${kind} report to ${oneLine(path)}: ${oneLine(why)}`);

/**
 * Before a run: can every report be written where asked? The path must not be a directory, its
 * nearest existing ancestor must be a writable directory that takes the file or the first folder
 * still to be made (tried, then removed). Nothing is left behind.
 */
export async function checkReportTargets(targets: readonly ReportTarget[]): Promise<void> {
  for (const { kind, path } of targets) {
    const full = resolve(path);
    const self = await stat(full).catch(() => undefined);
    if (self?.isDirectory()) throw cannotWrite(kind, path, `${path} is a directory`);
    let dir = dirname(full);
    let missing: string | undefined;
    for (;;) {
      const info = await stat(dir).catch((error: NodeJS.ErrnoException) => error);
      if (info instanceof Error) {
        if ((info.code === 'ENOENT' || info.code === 'ENOTDIR') && dirname(dir) !== dir) {
          missing = dir;
          dir = dirname(dir);
          continue;
        }
        throw cannotWrite(kind, path, `${dir}: ${errnoWords(info)}`);
      }
      if (!info.isDirectory()) throw cannotWrite(kind, path, `${dir} is not a directory`);
      break;
    }
    try {
      await access(self ? full : dir, constants.W_OK);
    } catch (error) {
      throw cannotWrite(kind, path, `${self ? full : dir}: ${errnoWords(error)}`);
    }
    // Tried, not only looked at: a folder may say it is writable and take no file (procfs).
    // A new file in the folder that will hold it is made and removed; an existing one is left as it is.
    if (self) continue;
    if (missing) {
      // The first folder still to be made, made and removed: /proc/nope/x.json ran every check,
      // printed PASS and only then failed (review 27). Named as the write after the run names it.
      try {
        await mkdir(missing);
        await rmdir(missing).catch(() => undefined);
      } catch (error) {
        // Made meanwhile by another writer: the ancestor takes folders.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
          throw cannotWrite(kind, path, `${missing}: ${errnoWords(error)}`);
      }
      continue;
    }
    try {
      await (await open(full, 'wx')).close();
      await unlink(full);
    } catch (error) {
      // Made meanwhile by another writer: the folder takes files.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotWrite(kind, path, errnoWords(error));
    }
  }
}

/** Renders each target's format and writes it, creating parent folders; returns what it wrote. */
export interface WriteOptions {
  /** The rule catalogue: written beside each HTML and Markdown report (rules.html, rules.md), whose rule ids link to it. */
  catalogue?: readonly CatalogueEntry[];
}

/** A file written: a report of a kind, or the catalogue beside one. */
export interface WrittenFile {
  kind: ReportKind | 'catalogue';
  path: string;
}

/**
 * Some reports could not be written: `failures` says each in one line, `written` the files that
 * were (each whole: none is lost for another's failure). The message is the first failure.
 */
export class ReportsNotWritten extends ReportError {
  override name = 'ReportsNotWritten';
  constructor(
    readonly failures: string[],
    readonly written: WrittenFile[],
  ) {
    super(failures[0]);
  }
}

/**
 * Written beside itself under another name, then renamed: a file is whole or not there (a failure,
 * or the process leaving, never leaves an empty or half-written report over the last good one).
 */
async function writeWhole(path: string, content: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(temporary, content, 'utf8');
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** What each of a set of writes came to: the files written, a line for each that failed. */
async function settle(
  writes: { file: WrittenFile; write: () => Promise<void> }[],
): Promise<{ written: WrittenFile[]; failures: string[] }> {
  const outcomes = await Promise.allSettled(writes.map(({ write }) => write()));
  return {
    written: writes.filter((_, i) => outcomes[i].status === 'fulfilled').map(({ file }) => file),
    failures: outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as Error).message] : [])),
  };
}

/**
 * Renders each target's format and writes it, creating parent folders; returns what it wrote.
 * Every file is tried: one that cannot be written is a ReportsNotWritten naming the rest as written.
 */
export async function writeReports(
  report: Report,
  targets: readonly ReportTarget[],
  options: WriteOptions = {},
): Promise<WrittenFile[]> {
  const safe = redact(report);
  for (const { kind } of targets)
    if (!isKind(kind)) throw new ReportError(`unknown report kind "${oneLine(String(kind))}" (expected ${kindList()})`);
  const reports = await settle(
    targets.map(({ kind, path }) => ({
      file: { kind, path },
      write: async () => {
        const content = RENDERERS[kind](safe);
        try {
          makeDirectories(dirname(path));
        } catch (error) {
          // mkdir meets a file where a folder should be: EEXIST or ENOTDIR, either way the same words.
          const where = (error as NodeJS.ErrnoException).path ?? dirname(path);
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EEXIST' || code === 'ENOTDIR') throw cannotWrite(kind, path, `${where} is not a directory`);
          throw cannotWrite(kind, path, `${where}: ${errnoWords(error)}`);
        }
        try {
          await writeWhole(path, content);
        } catch (error) {
          const where = (error as NodeJS.ErrnoException).path;
          const shown = where && where !== path && dirname(where) !== dirname(path) ? `${where}: ` : '';
          throw cannotWrite(kind, path, `${shown}${errnoWords(error)}`);
        }
      },
    })),
  );
  const { catalogue } = options;
  // Beside each report written whose rule ids link to it, once per folder and format.
  const beside = new Map<string, 'html' | 'md'>();
  if (catalogue)
    for (const { kind, path } of reports.written)
      if (kind === 'html' || kind === 'md') beside.set(catalogueBeside(kind, path)!, kind);
  const catalogues = await settle(
    [...beside].map(([file, kind]) => ({
      file: { kind: 'catalogue' as const, path: file },
      write: async () => {
        try {
          await writeWhole(file, CATALOGUE_FORMATS[kind].render(catalogue!));
        } catch (error) {
          throw new ReportError(`cannot write the rule catalogue to ${oneLine(file)}: ${errnoWords(error)}`);
        }
      },
    })),
  );
  const written = [...reports.written, ...catalogues.written];
  const failures = [...reports.failures, ...catalogues.failures];
  if (failures.length) throw new ReportsNotWritten(failures, written);
  return written;
}
