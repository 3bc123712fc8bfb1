/**
 * The harness's own words: every word of the strings its modules write (its messages, the paths it
 * asks for, media types, check ids), read once from its own files. A value the target issued under
 * a secret name is a credential unless it is made of these (redact.ts, learnedAs): the
 * harness carries the burden of knowing its words, so a token of random letters (a user code
 * `ELSUCARVH`) is never taken for one, and a target that issues `expected` as a token cannot blank
 * the harness's sentences. Review 13 found a shape heuristic ("readable letters") let 65% of
 * 9-letter user codes through and still blanked `oauth/token`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders whose modules write what a report shows (from sources: the repository; compiled: dist/). */
const FOLDERS = ['suites', 'cli', 'reporters', 'spec'];
/**
 * Comments are skipped (they cite tokens reviews found: those must stay credentials); strings
 * ('', "", ``) are kept. A regex literal or a nested template may cut a string short: a word more
 * or less, never a crash.
 */
const LEXEME = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
/** A run of letters and digits, lower-cased; a word has a letter (`v4`, `rs256`), numbers are not words. */
const RUN = /[a-z0-9]+/g;

let words: Set<string> | undefined;

/** The words, read on first use (about 1.3 MB of sources, tens of ms) and kept for the process. */
export function ownWords(): ReadonlySet<string> {
  words ??= readWords(join(dirname(fileURLToPath(import.meta.url)), '..', '..'));
  return words;
}

export function readWords(root: string): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Not there (a bundle, a copy without sources): no words, so more is masked, never less.
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.[jt]s$/.test(entry.name) && !/\.(?:test|d)\.[jt]s$/.test(entry.name))
        for (const [lexeme] of readFileSync(path, 'utf8').matchAll(LEXEME))
          if (lexeme[0] !== '/')
            for (const [run] of lexeme.toLowerCase().matchAll(RUN)) if (/[a-z]/.test(run)) found.add(run);
    }
  };
  for (const folder of FOLDERS) walk(join(root, folder));
  return found;
}
