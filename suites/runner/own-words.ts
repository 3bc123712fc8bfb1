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

/** What the harness writes: the words of its strings, and each string whole, lower-cased. */
interface OwnText {
  words: Set<string>;
  literals: Set<string>;
}

let own: OwnText | undefined;

/** Read on first use (about 1.3 MB of sources, tens of ms) and kept for the process. */
const ownText = (): OwnText => (own ??= readOwnText(join(dirname(fileURLToPath(import.meta.url)), '..', '..')));

export const ownWords = (): ReadonlySet<string> => ownText().words;

/**
 * Each string the harness writes whole, lower-cased (`authorization_code`, `application/json`,
 * `no-store`; a path's segments and tails, `oauth/token`): a value the target issued that is one of them is the harness's text, never learned,
 * not even where it stands as a value, since the harness sends it there (review 19: an access token
 * `authorization_code` blanked `grant_type=auth…` in every request).
 */
export const ownLiterals = (): ReadonlySet<string> => ownText().literals;

/**
 * What of a string its writer writes whole: the string, and when it is a path its segments and
 * tails (the harness writes `/oauth/token` after its target's host; a config's project
 * `alice-smith/website-prod` is shown in a path), each a value a redactor takes for a path's.
 */
export function wholes(text: string): string[] {
  const segments = text.split('/');
  return segments.length > 1 ? [text, ...segments.flatMap((s, i) => [s, segments.slice(i).join('/')])] : [text];
}

export const readWords = (root: string): Set<string> => readOwnText(root).words;

export function readOwnText(root: string): OwnText {
  const found = new Set<string>();
  const literals = new Set<string>();
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
          if (lexeme[0] !== '/') {
            const lower = lexeme.toLowerCase();
            for (const part of wholes(lower.slice(1, -1))) literals.add(part);
            for (const [run] of lower.matchAll(RUN)) if (/[a-z]/.test(run)) found.add(run);
          }
    }
  };
  for (const folder of FOLDERS) walk(join(root, folder));
  return { words: found, literals };
}
