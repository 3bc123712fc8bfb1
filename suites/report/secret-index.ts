/**
 * Exact secret values, found in a text in one pass whatever their number. Searching a text once
 * per value (`text.includes`) cost the product of the two: a target that taught the run thousands
 * of values (a Location of 14,000 `code=` pairs on every answer) made each report minutes long.
 * Here each value is indexed by its last `keyLength` characters: at each position of a text, the
 * characters ending there name the few values that may end there, and only those are compared in
 * place. A target may choose values that share their last characters too, so a bucket takes at
 * most BUCKET values that are not pinned: no position ever compares more.
 *
 * Nor does a comparison cost a value's length (review 19: 40 values `qz7x-`×600 matching at every
 * position made a 90 KB message 13.7 s to mask): a value is compared by a hash of the text's window
 * in constant time, and confirmed character by character only where the text moved on since it
 * last matched (a value matching again d characters on repeats itself every d, so its earlier
 * match vouches for all but the last d characters). Each value's confirmations cost at most the
 * text's length, and the matching steps are counted (`secretMatching`) for the test of linearity.
 */

import { randomInt } from 'node:crypto';

/**
 * What the search reads past, or as one character (review 22: a target that echoed a secret with
 * a line break or a space between its characters, or each character escaped as JSON or HTML writes
 * it, showed it whole to every reader, who turns the escapes straight back): whitespace, characters
 * no one sees (U+200B, U+00AD, U+2060, U+FEFF, the tag characters...) and the line breaks JSON
 * writes (`\n`, `\r`, `\t`) are skipped; `\u0067`, `&#103;` and `&#x67;` are read as `g`, however many
 * backslashes quote the escape (a JSON text quoted again), with leading zeros, without the `;`
 * (browsers read `&#103` too). Only the first backslash of a run starts an escape: one tried from
 * each backslash of a long run would read the run again (quadratic).
 */
const ESCAPE = /\\+(?:([nrt])|u([0-9a-f]{4}))|&#(?:x0*([0-9a-f]{1,6})|0*(\d{1,7}));?/iy;
const SKIPPED_RUN = /[\s\p{Default_Ignorable_Code_Point}]+/uy;
const SKIPPED = /^[\s\p{Default_Ignorable_Code_Point}]+$/u;

/** ASCII letters lowercased: the same length, so a position in it is one in the text. */
const fold = (text: string) => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

/** How a skipped stretch parts what it lies between (Searched.parted): not, by a line break, by other whitespace. */
const NOT = 0;
const LINE = 1;
const SPACE = 2;
const partsBy = (skipped: string) =>
  /[\n\r\v\f\u2028\u2029]/.test(skipped) ? LINE : /(?!\p{Default_Ignorable_Code_Point})\s/u.test(skipped) ? SPACE : NOT;

/**
 * What the search reads at `text[i]` (readAt): `length` characters of the text (0: one character
 * read as it is), standing for `chars` (none where skipped), parting what they lie between by
 * `parts` (partsBy; JSON's `\n` and `\r` are line breaks, its `\t` a space). One object, reused:
 * prose has a space every few characters.
 */
const unit = { length: 0, chars: '', parts: NOT };

function readAt(text: string, i: number): typeof unit {
  const c = text.charCodeAt(i);
  unit.length = 0;
  if ((c === 92 && text.charCodeAt(i - 1) !== 92) || c === 38) {
    ESCAPE.lastIndex = i;
    escapeReading.attempts++;
    const match = ESCAPE.exec(text);
    if (!match) return unit;
    const [whole, escaped, u, x, d] = match;
    const code = escaped !== undefined ? -1 : u !== undefined || x !== undefined ? parseInt(u ?? x, 16) : Number(d);
    // No character (`&#9999999;`): read as written.
    if (code > 0x10ffff) return unit;
    const char = code < 0 ? '' : String.fromCodePoint(code);
    unit.length = whole.length;
    const skipped = code < 0 || SKIPPED.test(char);
    unit.chars = skipped ? '' : fold(char);
    unit.parts = code < 0 ? (escaped.toLowerCase() === 't' ? SPACE : LINE) : skipped ? partsBy(char) : NOT;
  } else if (c === 32 || (c >= 9 && c <= 13) || c >= 0x80) {
    // ASCII whitespace, the most of it in prose, without a match; any other character, by the pattern.
    let end = i;
    let line = false;
    for (let w = c; w === 32 || (w >= 9 && w <= 13); w = text.charCodeAt(++end)) line ||= w !== 32 && w !== 9;
    if (end < text.length && text.charCodeAt(end) >= 0x80) {
      SKIPPED_RUN.lastIndex = i;
      const match = SKIPPED_RUN.exec(text);
      if (!match) return unit;
      unit.length = match[0].length;
      unit.parts = partsBy(match[0]);
    } else {
      unit.length = end - i;
      unit.parts = line ? LINE : SPACE;
    }
    unit.chars = '';
  }
  return unit;
}

/**
 * A text as searched (readAt): folded, skipped characters left out, escapes read; `at` and `to`
 * map each of its positions to where its character starts and ends in the text, and `parted` says
 * how what was skipped just before a position parts it from the one before (LINE wins over SPACE);
 * all three undefined when the text is read as it is. `gaps`: counts of `parted` (evenlyParted).
 */
export interface Searched {
  text: string;
  at?: Int32Array;
  to?: Int32Array;
  parted?: Uint8Array;
  gaps?: { any: Int32Array; spaces: Int32Array };
}

/**
 * How many times readAt tried to read an escape: once at each `&` and at the first backslash of a
 * run only, so each try reads its own run (and a bounded tail) and the tries of a text never read
 * a character twice. A count, not a clock, read by the test of linearity (a retry from every
 * backslash of a long run reads it again and again: quadratic).
 */
export const escapeReading = { attempts: 0 };

/** A character readAt may read as more or less than itself. */
const MAY_READ = /[\s\\&\u0080-\uffff]/;

export function searched(text: string): Searched {
  const folded = fold(text);
  if (!MAY_READ.test(folded)) return { text: folded };
  // Character codes and positions in arrays, joined once: a string a piece made prose slow (a piece every word).
  const size = folded.length;
  const codes = new Uint16Array(size);
  const at = new Int32Array(size + 1);
  const to = new Int32Array(size + 1);
  const parted = new Uint8Array(size + 1);
  let n = 0;
  for (let i = 0; i < size;) {
    const { length, chars, parts } = readAt(folded, i);
    if (!length) {
      codes[n] = folded.charCodeAt(i);
      at[n] = i;
      to[n++] = ++i;
      continue;
    }
    if (parts) parted[n] = parted[n] === LINE || parts === LINE ? LINE : SPACE;
    for (let k = 0; k < chars.length; k++, n++) {
      codes[n] = chars.charCodeAt(k);
      at[n] = i;
      to[n] = i + length;
    }
    i += length;
  }
  if (n === size && !parted.some(Boolean)) return { text: folded };
  let kept = '';
  for (let k = 0; k < n; k += 8192) kept += String.fromCharCode(...codes.subarray(k, Math.min(n, k + 8192)));
  return { text: kept, at, to, parted };
}

/**
 * Whether a learned value found at [start, end) of a searched text was written as one: with no
 * space inside it (a line break may split it: `gloas-UzKW…\nFEjM…`), or with something skipped
 * between every two of its characters (`g l o a s`, one a line). A target chooses what it issues,
 * and a value `didnotfinish` found across the spaces of the harness's `did not finish` blanked the
 * harness's own sentence (review 13's item 4). The config's secrets are masked however spaced.
 */
export function evenlyParted(read: Searched, start: number, end: number): boolean {
  const { parted } = read;
  if (!parted) return true;
  // Prefix counts, made once a text: the positions parted at all, and by a space, before each.
  const gaps = (read.gaps ??= (() => {
    const any = new Int32Array(parted.length + 1);
    const spaces = new Int32Array(parted.length + 1);
    for (let i = 0; i < parted.length; i++) {
      any[i + 1] = any[i] + (parted[i] === NOT ? 0 : 1);
      spaces[i + 1] = spaces[i] + (parted[i] === SPACE ? 1 : 0);
    }
    return { any, spaces };
  })());
  // The positions inside the value: start + 1 to end - 1.
  const inside = (counts: Int32Array) => counts[end] - counts[start + 1];
  return inside(gaps.spaces) === 0 || inside(gaps.any) === end - start - 1;
}

/** `searched`'s positions [start, end) as the text's. */
export const inText = ({ at, to }: Searched, start: number, end: number) =>
  at && to ? { start: at[start], end: to[end - 1] } : { start, end };

/**
 * Where in `text`, from `from` on, `count` characters as the search reads them (searched) have
 * passed: a stretch of whitespace or invisible characters counts none, an escape one. Read from the
 * text's start, so an escape that began before `from` is one character still (cost: `from` and
 * what it passes, never the text's length).
 */
export function pastSearched(text: string, from: number, count: number): number {
  let i = 0;
  for (let n = 0; i < text.length && n < count;) {
    const { length, chars } = readAt(text, i);
    if (i >= from) n += length ? chars.length : 1;
    i += length || 1;
  }
  return i;
}

/**
 * Characters compared while matching (window hashes, confirmed characters, a value's periods):
 * a count, not a clock, read by the test of linearity.
 */
export const secretMatching = { steps: 0 };

/**
 * Two polynomial hashes modulo primes below 2^26 (a product of two residues stays an exact
 * double), their bases drawn at random so a target cannot aim at collisions; a collision costs a
 * confirmation only, never a wrong mask.
 */
const PRIMES = [67108859, 67108837] as const;
const BASES = PRIMES.map((p) => randomInt(65536, p - 1));

/** `x` modulo prime k, for `x` below 2^52: a floor, as the `%` of a double is a slow call. */
function mod(x: number, k: number): number {
  const p = PRIMES[k];
  const r = x - Math.floor(x * INVERSES[k]) * p;
  return r < 0 ? r + p : r >= p ? r - p : r;
}
const INVERSES = PRIMES.map((p) => 1 / p);

/** `hashes[k][i]`: hash k of `text`'s first i characters. */
function prefixHashes(text: string): Uint32Array[] {
  return BASES.map((base, k) => {
    const h = new Uint32Array(text.length + 1);
    for (let i = 0; i < text.length; i++) h[i + 1] = mod(h[i] * base + text.charCodeAt(i), k);
    return h;
  });
}

/** Each hash of a whole string, and each base to the power of its length (to take a window's). */
function hashOf(form: string): { hash: number[]; power: number[] } {
  const hash = prefixHashes(form).map((h) => h[form.length]);
  const power = BASES.map((base, k) => {
    let power = 1;
    for (let i = 0; i < form.length; i++) power = mod(power * base, k);
    return power;
  });
  return { hash, power };
}

/** `periods[d]` is 1 when `form` repeats itself every d characters (its Z-function reaches the end). */
function periodsOf(form: string): Uint8Array {
  const n = form.length;
  const z = new Int32Array(n);
  const periods = new Uint8Array(n);
  for (let i = 1, left = 0, right = 0; i < n; i++) {
    let k = i < right ? Math.min(right - i, z[i - left]) : 0;
    for (secretMatching.steps++; i + k < n && form.charCodeAt(k) === form.charCodeAt(i + k); k++)
      secretMatching.steps++;
    z[i] = k;
    if (i + k > right) [left, right] = [i, i + k];
    if (i + k === n) periods[i] = 1;
  }
  return periods;
}

/** A letter or a digit of a folded text: what a secret standing alone has on neither side. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** A value as it is compared: as a text is searched (folded, nothing skipped in it, escapes read). */
export const comparable = (value: string) => searched(value).text;

/** Values of one bucket (one ending) at most, but for the pinned ones (the config's own secrets). */
export const BUCKET = 8;

/**
 * A pinned value (the config's own password or secret) shorter than the key is still masked: from
 * this many characters wherever it occurs, as any secret; shorter, only where it stands alone
 * between characters that are not letters or digits. The config's secrets are masked whatever
 * their length (review 13: a password `abc12` was printed), but a password `a` masked inside
 * every word would leave no report readable; standing alone it is still masked (the word `a` too).
 */
export const WHOLE_WORD_BELOW = 4;

/**
 * A learned value of digits and punctuation alone (`1048576`, `2026-11-27`) is masked only where
 * it stands alone too: a target that issued it as a token blanked the harness's own numbers inside
 * longer ones (`started 2026-11-27T05:28:58Z`, review 14). Standing alone it is a credential still.
 */
const numeric = (form: string) => /\d/.test(form) && !/\p{L}/u.test(form);

/** Whether `form` is searched for only where it stands alone (WHOLE_WORD_BELOW, numeric). */
export const aloneOnly = (form: string, pinned: boolean) =>
  form.length < WHOLE_WORD_BELOW || (!pinned && numeric(form));

/** Whether `text[start, end)` of a searched text stands alone: parted, or no letter or digit, on either side. */
export const standsAlone = ({ text, parted }: Searched, start: number, end: number) =>
  (parted?.[start] || !WORD_CHAR.test(text[start - 1] ?? '')) && (parted?.[end] || !WORD_CHAR.test(text[end] ?? ''));

/** A stretch of a text that is a secret: `secret` is the first one found there. */
export interface SecretSpan {
  start: number;
  end: number;
  secret: string;
}

export interface SecretIndex extends Iterable<string> {
  readonly size: number;
  /**
   * The most characters of a text as searched (skipped ones not counted, an escape one) that one
   * occurrence of a value covers (the longest comparable form): what a text cut past that many more
   * (pastSearched) may still show whole.
   */
  readonly longest: number;
  has(value: string): boolean;
  /**
   * Adds `value`; false when it is already there, or (unless pinned) shorter than the key or its
   * bucket is full. A pinned value shorter than the key is searched for on its own (WHOLE_WORD_BELOW).
   */
  add(value: string, pinned?: boolean): boolean;
  delete(value: string): void;
  /** Where the values occur in `text`, overlapping occurrences merged into one span, in order. */
  spans(text: string): SecretSpan[];
}

export const isSecretIndex = (value: Iterable<string>): value is SecretIndex =>
  typeof (value as Partial<SecretIndex>).spans === 'function';

/** An indexed value, its comparable form, whether it counts only where it stands alone, and whether it is pinned (evenlyParted). */
type Entry = { value: string; form: string; alone: boolean; pinned: boolean };

/**
 * A value compared by hash: its form's hashes, and where it last matched in the text being
 * searched (`search`: which one), confirmed.
 */
type Hashed = Entry & { hash: number[]; power: number[]; periods?: Uint8Array; search: number; last: number };

/** Searches made so far: a value's `last` match counts only in the search that found it. */
let searches = 0;

/**
 * Whether `entry` ends at `end` of `text` (`textHashes`: its prefix hashes, made when first asked). Matched d characters back, only the
 * last d are new, and only if the form repeats every d; else its window's hashes first, then its
 * characters (a cost its length, paid once per as many characters of the text at most).
 */
function matchesAt(entry: Hashed, text: string, textHashes: () => Uint32Array[], end: number): boolean {
  const { form } = entry;
  const start = end - form.length;
  const moved = entry.search === searches ? end - entry.last : form.length;
  secretMatching.steps++;
  if (moved < form.length) {
    if (!(entry.periods ??= periodsOf(form))[moved]) return false;
  } else {
    const hashes = textHashes();
    for (let k = 0; k < hashes.length; k++) {
      const window = hashes[k][end] - mod(hashes[k][start] * entry.power[k], k);
      if ((window < 0 ? window + PRIMES[k] : window) !== entry.hash[k]) return false;
    }
  }
  for (let i = form.length - Math.min(moved, form.length); i < form.length; i++) {
    secretMatching.steps++;
    if (text.charCodeAt(start + i) !== form.charCodeAt(i)) return false;
  }
  entry.search = searches;
  entry.last = end;
  return true;
}

export function createSecretIndex(keyLength: number, values: Iterable<string> = []): SecretIndex {
  const all = new Set<string>();
  /** How many values have a comparable form of each length: `longest` without a scan of them all. */
  const lengths = new Map<number, number>();
  const counted = (form: string, by: number) => {
    const n = (lengths.get(form.length) ?? 0) + by;
    if (n) lengths.set(form.length, n);
    else lengths.delete(form.length);
  };
  // Each value under the ending of its comparable form, with that form.
  const buckets = new Map<string, Hashed[]>();
  const keyOf = (form: string) => form.slice(form.length - keyLength);
  /** Pinned values shorter than the key (or WHOLE_WORD_BELOW): the config's, so few; each searched for with indexOf. */
  const shortOnes: Entry[] = [];
  const index: SecretIndex = {
    get size() {
      return all.size;
    },
    get longest() {
      return Math.max(0, ...lengths.keys());
    },
    has: (value) => all.has(value),
    [Symbol.iterator]: () => all[Symbol.iterator](),
    add(value, pinned = false) {
      const form = comparable(value);
      const short = form.length < Math.max(keyLength, WHOLE_WORD_BELOW);
      if (all.has(value) || !form || (short && !pinned)) return false;
      const entry = { value, form, alone: aloneOnly(form, pinned), pinned };
      if (short) {
        shortOnes.push(entry);
        all.add(value);
        counted(form, 1);
        return true;
      }
      const key = keyOf(form);
      const bucket = buckets.get(key);
      if (bucket && !pinned && bucket.length >= BUCKET) return false;
      counted(form, 1);
      const { hash, power } = hashOf(form);
      // One shape for every value (a spread object is slow to read in the loop).
      const hashed: Hashed = { ...entry, hash, power, periods: undefined, search: -1, last: -1 };
      // Longest first, the first added first of equal lengths: the first that matches is the one placed.
      if (!bucket) buckets.set(key, [hashed]);
      else {
        const shorter = bucket.findIndex((e) => e.form.length < form.length);
        bucket.splice(shorter < 0 ? bucket.length : shorter, 0, hashed);
      }
      all.add(value);
      return true;
    },
    delete(value) {
      if (!all.delete(value)) return;
      counted(comparable(value), -1);
      const at = shortOnes.findIndex((v) => v.value === value);
      if (at >= 0) {
        shortOnes.splice(at, 1);
        return;
      }
      const key = keyOf(comparable(value));
      const left = buckets.get(key)!.filter((v) => v.value !== value);
      if (left.length) buckets.set(key, left);
      else buckets.delete(key);
    },
    spans(whole) {
      if (!all.size) return [];
      const read = searched(whole);
      const { text } = read;
      const found: SecretSpan[] = [];
      // The whole stretch of the text, what was skipped inside it too.
      const place = (start: number, end: number, secret: string) => found.push({ ...inText(read, start, end), secret });
      for (const { value: secret, form, alone } of shortOnes) {
        for (let start = text.indexOf(form); start >= 0; start = text.indexOf(form, start + 1)) {
          const end = start + form.length;
          if (!alone || standsAlone(read, start, end)) place(start, end, secret);
        }
      }
      // At each end, the longest value ending there (the first added of equal ones; the bucket is in
      // that order): the shorter ones lie inside it, and a span starting earlier is never one of them.
      let hashes: Uint32Array[] | undefined;
      const textHashes = () => (hashes ??= prefixHashes(text));
      searches++;
      for (let end = keyLength; end <= text.length; end++) {
        secretMatching.steps++;
        const bucket = buckets.get(text.slice(end - keyLength, end));
        if (!bucket) continue;
        const longest = bucket.find((entry) => {
          const start = end - entry.form.length;
          return (
            start >= 0 &&
            (!entry.alone || standsAlone(read, start, end)) &&
            matchesAt(entry, text, textHashes, end) &&
            (entry.pinned || evenlyParted(read, start, end))
          );
        });
        if (longest) place(end - longest.form.length, end, longest.value);
      }
      // Leftmost first, the longest of those first; an occurrence that overlaps the span before joins it.
      found.sort((a, b) => a.start - b.start || b.end - a.end);
      const spans: SecretSpan[] = [];
      for (const span of found) {
        const last = spans[spans.length - 1];
        if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
        else spans.push({ ...span });
      }
      return spans;
    },
  };
  for (const value of values) index.add(value, true);
  return index;
}
