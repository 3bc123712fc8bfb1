/**
 * The redaction's readers of credential shapes in free text (redact.ts): `Authorization:`, token
 * and cookie lines, bare Bearer tokens, URL passwords, JSON Web Tokens and `name=value` pairs, read
 * by hand in one pass forward instead of by patterns (a literal name found by a search of it). A
 * target's text may be long and hostile (`-eyJ` repeated made the JWT pattern quadratic once: a
 * 256 KB body took 33.7 s); a pattern's work is V8's and counts nothing, these count the
 * characters they pass over (credentialReading.steps), which the test of their linearity reads
 * instead of a clock. Each finds exactly what the pattern it replaces found (named on each; the
 * test keeps the patterns as its oracle).
 */

/** Characters the readers have passed over, counted where they pass them. */
export const credentialReading = { steps: 0 };

/** `\s` of a pattern: JavaScript's white space and line terminators, by character code. */
export function isSpace(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** `[\w-]`: a character of a base64url run (a JWT's segment). */
const isRunChar = (c: string | undefined): boolean =>
  c !== undefined &&
  ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || c === '-');

/** Past the characters from `from` that `passes` accepts, counted. */
function past(text: string, from: number, passes: (c: string) => boolean): number {
  let at = from;
  while (at < text.length && passes(text[at])) at++;
  credentialReading.steps += at - from;
  return at;
}

/**
 * The JSON Web Tokens of `text` as `[start, end)`, left to right, as
 * `/(?<![\w-])eyJ[\w-]*\.[\w-]*\.[\w-]*\/g` finds them: one starts where a run of base64url
 * characters starts (not at every `eyJ` after a `-`: that read each run from each of its `eyJ`).
 * A run that starts no token is passed once; the two after it at most twice more.
 */
export function jwtSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let at = 0;
  while (at < text.length) {
    if (!isRunChar(text[at])) {
      credentialReading.steps++;
      at++;
      continue;
    }
    // A run starts at `at` (what came before is no run character, or the text's start).
    const first = past(text, at, isRunChar);
    if (text.startsWith('eyJ', at) && text[first] === '.') {
      const second = past(text, first + 1, isRunChar);
      if (text[second] === '.') {
        const end = past(text, second + 1, isRunChar);
        spans.push([at, end]);
        at = end;
        continue;
      }
    }
    at = first;
  }
  return spans;
}

/** `[a-z0-9+.-]` without case: a character of a URL's scheme. */
const isSchemeChar = (c: string | undefined): boolean =>
  c !== undefined && ((isRunChar(c) && c !== '_') || c === '+' || c === '.');
const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

/** A URL's userinfo password: `scheme://user:` before it, `@` after it (none where the text's end cut it). */
export interface UserinfoSpan {
  start: number;
  password: number;
  passwordEnd: number;
  end: number;
}

/**
 * The passwords of URLs' userinfo (`scheme://user:password@host`), left to right, as
 * `/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)(@)/gi` finds them; `cut`, as its
 * form ending `(@|$)`: a password the text's end interrupts. A URL starts where a run of scheme
 * characters starts, and its user and password hold no `/`, so no later start reads them again.
 */
export function userinfoSpans(text: string, cut = false): UserinfoSpan[] {
  const spans: UserinfoSpan[] = [];
  let at = 0;
  while (at < text.length) {
    if (!isLetter(text[at]) || isSchemeChar(text[at - 1])) {
      credentialReading.steps++;
      at++;
      continue;
    }
    const scheme = past(text, at, isSchemeChar);
    if (text.startsWith('://', scheme)) {
      const user = past(text, scheme + 3, (c) => !isSpace(c) && c !== '/' && c !== ':' && c !== '@');
      const password = user + 1;
      const passwordEnd =
        text[user] === ':' ? past(text, password, (c) => !isSpace(c) && c !== '/' && c !== '@') : user;
      const end = text[passwordEnd] === '@' ? passwordEnd + 1 : cut && passwordEnd === text.length ? passwordEnd : -1;
      if (passwordEnd > password && end >= 0) {
        spans.push({ start: at, password, passwordEnd, end });
        at = end;
        continue;
      }
    }
    // Each later character of the scheme has one before it: none starts a URL.
    at = scheme;
  }
  return spans;
}

/**
 * Where a JWT the text's end interrupts before its dots starts, as
 * `/(?<![\w-])eyJ[\w-]*(?:\.[\w-]*){0,2}$/` finds it: in the text's tail of runs joined by at most
 * two dots, read back from the end once, the first run that starts with `eyJ`.
 */
export function cutJwtStart(text: string): number | undefined {
  let start: number | undefined;
  let from = text.length;
  for (let dots = 0; from > 0; from--) {
    const c = text[from - 1];
    if (c === '.' && dots < 2) dots++;
    else if (!isRunChar(c)) break;
    // A run starts at `from` after a dot of the tail (read back: the last found is the first).
    if (c === '.' && text.startsWith('eyJ', from)) start = from;
  }
  credentialReading.steps += text.length - from;
  // The tail's first run starts after what is no part of it, or at the text's start.
  return text.startsWith('eyJ', from) ? from : start;
}

const isNameStart = (c: string | undefined) => c !== undefined && (isLetter(c) || c === '_');
/** `[\w\-.%[\]]`: a character of a pair's name. */
const isNameChar = (c: string) => isRunChar(c) || c === '.' || c === '%' || c === '[' || c === ']';

/** A pair's head: its name, the quote around it (or ''), and the separator after it (`:` or `=`, spaced). */
export interface PairHead {
  start: number;
  quote: string;
  name: string;
  separator: string;
  /** Past the separator's spaces: where the value starts. */
  end: number;
}

/** Past `\s*[:=]\s*` from `from`, or -1. */
function pastSeparator(text: string, from: number): number {
  const sign = past(text, from, isSpace);
  return text[sign] === ':' || text[sign] === '=' ? past(text, sign + 1, isSpace) : -1;
}

/**
 * The first head of a `name=value`, `name: value`, `"name": …` pair at or after `from`, as
 * `/(["']?)(?<![\w\-.%[\]/])([A-Za-z_][\w\-.%[\]]*)\1(\s*[:=]\s*)/g` finds it: a name starts
 * after a quote or where no name character nor `/` is before it (a path's last segment names no
 * field), so a name that is no head is passed once (twice after a quote), not from each of its characters.
 */
export function pairHead(text: string, from: number): PairHead | undefined {
  let at = from;
  while (at < text.length) {
    const c = text[at];
    if ((c === '"' || c === "'") && isNameStart(text[at + 1])) {
      const nameEnd = past(text, at + 1, isNameChar);
      const end = text[nameEnd] === c ? pastSeparator(text, nameEnd + 1) : -1;
      const name = text.slice(at + 1, nameEnd);
      if (end >= 0) return { start: at, quote: c, name, separator: text.slice(nameEnd + 1, end), end };
      // The same name unquoted (a quote is no name character), read once.
      const bare = pastSeparator(text, nameEnd);
      if (bare >= 0) return { start: at + 1, quote: '', name, separator: text.slice(nameEnd, bare), end: bare };
      at = nameEnd;
      continue;
    } else if (isNameStart(c) && !(isNameChar(text[at - 1]) || text[at - 1] === '/')) {
      const nameEnd = past(text, at, isNameChar);
      const end = pastSeparator(text, nameEnd);
      if (end >= 0)
        return { start: at, quote: '', name: text.slice(at, nameEnd), separator: text.slice(nameEnd, end), end };
      // Each later character of the name has a name character before it: none starts a head.
      at = nameEnd;
      continue;
    }
    credentialReading.steps++;
    at++;
  }
  return undefined;
}

/** A pair's value: double-quoted (`dq`, escapes kept), single-quoted (`sq`) or bare, and where it ends. */
export interface PairValue {
  whole: string;
  dq?: string;
  sq?: string;
  bare?: string;
  end: number;
}

/** What `.` of a pattern does not match. */
const isLineEnd = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
/** What ends a bare value: `[\s"'&,;<>#)}\]]`. */
const endsBare = (c: string) => isSpace(c) || '"\'&,;<>#)}]'.includes(c);

/**
 * The value at `at`, as the sticky `/"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|([^\s"'&,;<>#)}\]]+)/y`
 * reads it; `cut` (the text was cut at its end), as its form that closes at the end a quote the
 * end left open (a lone `\` last included): `"((?:[^"\\\r\n]|\\.)*)(?:"|\\?$)|'([^'\r\n]*)(?:'|$)|…`.
 */
export function pairValue(text: string, at: number, cut = false): PairValue | undefined {
  const c = text[at];
  const value = (end: number, part: Omit<PairValue, 'whole' | 'end'>): PairValue => ({
    whole: text.slice(at, end),
    ...part,
    end,
  });
  if (c === '"') {
    let i = at + 1;
    for (; i < text.length; i++) {
      const d = text[i];
      if (d === '"' || d === '\r' || d === '\n') break;
      if (d === '\\') {
        if (i + 1 >= text.length || isLineEnd(text[i + 1])) break;
        i++;
      }
    }
    credentialReading.steps += i - at;
    if (text[i] === '"') return value(i + 1, { dq: text.slice(at + 1, i) });
    const open = i === text.length || (text[i] === '\\' && i + 1 === text.length);
    return cut && open ? value(text.length, { dq: text.slice(at + 1, i) }) : undefined;
  }
  if (c === "'") {
    const i = past(text, at + 1, (d) => d !== "'" && d !== '\r' && d !== '\n');
    if (text[i] === "'") return value(i + 1, { sq: text.slice(at + 1, i) });
    return cut && i === text.length ? value(i, { sq: text.slice(at + 1, i) }) : undefined;
  }
  const end = past(text, at, (d) => !endsBare(d));
  return end > at ? value(end, { bare: text.slice(at, end) }) : undefined;
}

/** `\w`. */
const isWordChar = (c: string | undefined): boolean => c !== '-' && isRunChar(c);

/** What ends an Authorization's or a token header's credential: `[\s"',;)}\]]`. */
const endsCredential = (c: string) => isSpace(c) || '"\',;)}]'.includes(c);
const HEADER_LINES = {
  authorization: { names: /proxy-authorization|authorization/gi, signs: ':=', scheme: true, ends: endsCredential },
  token: { names: /private-token|job-token|deploy-token/gi, signs: ':=', scheme: false, ends: endsCredential },
  cookie: { names: /set-cookie|cookie/gi, signs: ':', scheme: false, ends: (c: string) => '\r\n"\''.includes(c) },
};

/**
 * The next of `words` (a search of literal words, `gi`) at or after `at`, the characters it passed
 * over counted: a literal's search, as html.ts finds a tag's start.
 */
function nextWord(text: string, at: number, words: RegExp): RegExpExecArray | null {
  words.lastIndex = at;
  const found = words.exec(text);
  credentialReading.steps += (found ? found.index + 1 : text.length) - at;
  return found;
}

/** A header's credential in free text: the header's name as written, where its value starts and ends. */
export interface HeaderLine {
  name: string;
  value: number;
  end: number;
}

/**
 * Header-style credentials in free text, left to right, as these find them (`i`: names in any case):
 * - authorization: `/\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?:([A-Za-z][\w.-]*)([ \t]+))?([^\s"',;)}\]]+)/gi`,
 *   the value after its scheme (`Authorization: Bearer x`), or the scheme's word alone when no value follows it;
 * - token: `/\b(private-token|job-token|deploy-token)(["']?\s*[:=]\s*["']?)([^\s"',;)}\]]+)/gi`;
 * - cookie: `/\b(set-cookie|cookie)(["']?\s*:\s*["']?)([^\r\n"']+)/gi`.
 * Each position is looked at once for a name; the spaces and the value after one are read once.
 */
export function headerLines(text: string, kind: keyof typeof HEADER_LINES): HeaderLine[] {
  const { names, signs, scheme, ends } = HEADER_LINES[kind];
  const lines: HeaderLine[] = [];
  const quote = (at: number) => (text[at] === '"' || text[at] === "'" ? at + 1 : at);
  for (let found = nextWord(text, 0, names); found;) {
    const [name] = found;
    const at = found.index;
    const sign = isWordChar(text[at - 1]) ? -1 : past(text, quote(at + name.length), isSpace);
    if (sign < 0 || !signs.includes(text[sign] ?? '\n')) {
      found = nextWord(text, at + 1, names);
      continue;
    }
    const spaced = past(text, sign + 1, isSpace);
    const from = quote(spaced);
    let value = from;
    let end = -1;
    if (scheme && isLetter(text[from] ?? '')) {
      const space = past(text, from + 1, (c) => isWordChar(c) || c === '.' || c === '-');
      const after = past(text, space, (c) => c === ' ' || c === '\t');
      const credential = after > space ? past(text, after, (c) => !ends(c)) : after;
      if (credential > after) [value, end] = [after, credential];
    }
    if (end < 0) end = past(text, from, (c) => !ends(c));
    // No value there: the spaces after the sign given back, the last first (a cookie's may start with one).
    for (let back = spaced - 1; end <= value && back > sign; back--) {
      credentialReading.steps++;
      if (!ends(text[back])) [value, end] = [back, past(text, back, (c) => !ends(c))];
    }
    if (end > value) lines.push({ name, value, end });
    found = nextWord(text, end > value ? end : at + 1, names);
  }
  return lines;
}

/** `Bearer`, its case as written. */
const BEARER = /Bearer/g;

/** `[A-Za-z0-9\-._~+/]`: a character of a Bearer token (RFC 6750's b64token, but its `=`). */
const isTokenChar = (c: string) => isRunChar(c) || '._~+/'.includes(c);

/**
 * Bare `Bearer <token>`s anywhere, left to right, as `/\b(Bearer)([ \t]+)([A-Za-z0-9\-._~+/]+=*…?)/g`
 * finds them: where the token starts and ends.
 */
export function bearerTokens(text: string): Array<[number, number]> {
  const tokens: Array<[number, number]> = [];
  for (let found = nextWord(text, 0, BEARER); found;) {
    const at = found.index;
    const token = isWordChar(text[at - 1]) ? at + 6 : past(text, at + 6, (c) => c === ' ' || c === '\t');
    const run = token > at + 6 ? past(text, token, isTokenChar) : token;
    if (run === token) {
      found = nextWord(text, at + 1, BEARER);
      continue;
    }
    const padded = past(text, run, (c) => c === '=');
    const end = text[padded] === '…' ? padded + 1 : padded;
    tokens.push([token, end]);
    found = nextWord(text, end, BEARER);
  }
  return tokens;
}

/**
 * A learned device user code as redact.ts masks it: its pattern (the run's userCodePattern, sticky),
 * the most characters a match spans, and the characters a match starts with.
 */
export interface CodePattern {
  readonly pattern: RegExp;
  readonly reach: number;
  readonly starts: ReadonlySet<number>;
}

/**
 * `text` with each match of a code's pattern replaced by `mask`, left to right, as
 * `text.replace` with the pattern made global finds them. The pattern is tried only where a match
 * can start, on the next `reach` characters alone: its work per start is bounded, and counted as
 * `reach` (a whole text given to it counted nothing, and its linearity was timed: review 27).
 */
export function maskCode(text: string, code: CodePattern, mask: string): string {
  let out = '';
  let copied = 0;
  let at = 0;
  while (at < text.length) {
    credentialReading.steps++;
    if (code.starts.has(text.codePointAt(at)!)) {
      credentialReading.steps += code.reach;
      code.pattern.lastIndex = 0;
      const match = code.pattern.exec(text.slice(at, at + code.reach));
      if (match) {
        out += text.slice(copied, at) + mask;
        at = copied = at + match[0].length;
        continue;
      }
    }
    at++;
  }
  return copied ? out + text.slice(copied) : text;
}
