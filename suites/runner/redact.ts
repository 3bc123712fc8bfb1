/**
 * The run's redactor: the one masking implementation (suites/report/redact.ts) plus memory. Every
 * secret the run meets (configured secrets, tokens in responses, codes in redirects) is learned as
 * exchanges happen, so it is masked wherever it turns up later: in an HTML page, a message, a
 * counterexample. Masking itself happens only for what leaves the run (a failure's exchanges and
 * messages): a run makes thousands of requests and shows a handful.
 */
import { plural } from '../report/words.js';
import { encodedForms, harmless, isSecretName, mask, redactExchange, redactText, redactUrl } from '../report/redact.js';
import { tooDeep } from '../report/json-depth.js';
import type { CodePattern } from '../report/credential-reading.js';
import { createSecretIndex } from '../report/secret-index.js';
import type { Exchange } from '../report/model.js';
import { RULE_IDS, responseHeaderNames } from '../../spec/index.js';
import { ownLiterals, ownWords, wholes } from './own-words.js';
import { metaRefresh, refreshOf } from '../drivers/html.js';

export { mask, isSecretName };

export interface Redactor {
  /**
   * Remember a secret value the run met (a token, a code, a secret read on a page) so it is masked
   * wherever it appears later, if it looks like a credential (learnedAs, from MIN_REMEMBERED
   * characters; one of the harness's words, where it stands as a value): the target chose it. Only the config's secrets, given to
   * createRedactor, are masked whatever their shape and length.
   */
  remember(value: string | undefined | null): void;
  /** Learn the secrets an exchange carries (cheap; called for every exchange). */
  learn(exchange: Exchange): void;
  /** `cut`: the text was cut at its end before masking (RedactOptions.cut). */
  text(text: string, cut?: boolean): string;
  /**
   * A name the target chose (a member's, a cookie's, a path segment: `diff` keeps those) masked as
   * `text` masks it, remembered until the run learns another secret: the same names come on every
   * answer (masking each anew, a diff's run of three suites took 25 s where it took 15).
   */
  name(text: string): string;
  /**
   * The most characters of a text as the secret index reads them (whitespace and invisible ones not
   * counted, an escape one: pastSearched) that one thing masked by value spans:
   * the longest secret or learned value in any of its forms, a user code with the widest gaps its
   * pattern allows. A text cut that many letters past what a report shows masks the shown part as
   * the whole text would (cut.ts, maskedHead).
   */
  readonly reach: number;
  url(url: string): string;
  /** An exchange as a report may show it: masked with every secret learned so far, bodies cut short. */
  exchange(exchange: Exchange): Exchange;
  /** Strings masked by value now (each secret and its encoded forms). */
  readonly size: number;
}

/** The most names `name` remembers (a target may make up new ones on every answer). */
const NAMES_KEPT = 4096;

/** Values too short to be worth remembering: masking them would shred ordinary words. */
const MIN_REMEMBERED = 6;
/**
 * What the target can make the run remember is bounded: a token response offers three values, a
 * Location of 14,000 `code=` pairs on every answer taught them all (with their encoded forms, 3.6
 * million strings, each searched for in every text shown: a run that had not ended in 7 minutes).
 * At most this many secret-named values of one exchange are read...
 */
export const LEARNED_PER_EXCHANGE = 32;
/**
 * ...and this many are kept in all, the oldest forgotten first (a run against the simulator learns
 * 1,223, 3,439 with --runs 100; a text is searched for all at once, so they cost memory, not time).
 * The config's own secrets are never forgotten; a forgotten value is still masked where the
 * patterns find it (a secret-named field, a Bearer token, a JWT).
 */
export const LEARNED_MAX = 32_768;
/** Rule ids, upper-cased: a value that folds to one is the harness's word. */
const RULE_WORDS = new Set<string>(RULE_IDS);

/** The fewest characters of a value the target put under a secret name in its answer, to be learned. */
const CREDENTIAL_MIN = 8;

/**
 * Whether a value the target chose under a secret name (a token, a code, a client secret) is a
 * credential, learned and masked wherever it turns up ('anywhere'). It is, whatever its shape
 * (user codes of letters `ELSUCARVH`, `EZBM-IRCDH`, lower-case `avvy-gdde`, digits, base64url),
 * unless it is the harness's own text, which a target that echoed it as a "credential" would
 * blank in every message and reproduce command (review 13: `oauth/token`, `127.0.0.1`, the seed):
 * - shorter than `min` (CREDENTIAL_MIN in its answers; fewer once the harness sends it back, a
 *   token the target really issued);
 * - with whitespace: no token has it (a Bearer token is RFC 6750's b64token), the harness's
 *   sentences do (`2 retries`, `did not finish`); a user code may (RFC 8628 §6.1: `WDJB MJHT`), and
 *   is judged as its dashed form unless it reads as a sentence (`userCode`, userCodeForms);
 * - a protocol word, a rule id, or the harness's text (harnessText): made only of its own words
 *   (ownWords: the words of the strings its modules write, all ASCII, so a value with any other
 *   letter is a credential; `own`: the run's seed, the target's URL, the config's values) and
 *   short numbers after `.`, `:` or `/` (`api/v4/user`, `HTTP/1.1`), or one of the run's own values
 *   or of the harness's strings whole (`127.0.0.1:47200`, `authorization_code`: ownLiterals). The
 *   search ignores ASCII case, so this does too.
 * Made of the harness's words but none of those wholes (`oauth-token`, `valid-refresh-token`), it is
 * masked 'as a value': where it stands as one (after `=` or `Bearer `, quoted after `:` or `=`, a
 * whole header or JSON string of an exchange), never in the harness's sentences.
 * A value not learned is still masked where the patterns find it (a secret-named field, a Bearer
 * token, a JWT).
 */
export function learnedAs(
  value: string,
  min = CREDENTIAL_MIN,
  own: ReadonlySet<string> = NONE,
  userCode = false,
): 'anywhere' | 'as a value' | undefined {
  if (value.length < min) return undefined;
  // A user code's groups may be spaced (userCodeForms): then as its dashed form, unless it reads as a
  // sentence, and as the secret index reads it, its spaces left out (`Expe cted` reads `expected`).
  if (/\s/.test(value))
    return userCode &&
      !sentence(value.toLowerCase(), own) &&
      ['-', ''].every((join) => learnedAs(value.replace(/\s+/g, join), min, own) === 'anywhere')
      ? 'anywhere'
      : undefined;
  // Sent back, a number is a code the target issued (RFC 8628 §6.1's digits user code), not the
  // harness's count, unless it is the run's own (its seed): review 12 found '482913' shown whole.
  if (min < CREDENTIAL_MIN && /^\d+$/.test(value) && !own.has(value)) return 'anywhere';
  const folded = value.toLowerCase();
  if (harmless(value) || harmless(folded) || RULE_WORDS.has(value.toUpperCase())) return undefined;
  if (!harnessText(folded, own)) return 'anywhere';
  // The run's own values whole (its URL, seed, client id) and the strings the harness writes whole
  // (`authorization_code`, `application/json`) stay everywhere: it sends them after `=` and in headers.
  return own.has(folded) || ownLiterals().has(folded) ? undefined : 'as a value';
}

const NONE: ReadonlySet<string> = new Set();

/** A run of letters or digits, any script: a non-ASCII one is never the harness's word (its words are ASCII). */
const RUN = /[\p{L}\p{N}]+/gu;
/**
 * The longest number after `.`, `:` or `/` the harness writes of itself in a value with words: a
 * port (65535), an address's octet, a version, a status. Longer ones (`token:48291375`,
 * `code.9876543210`) are the target's (review 14).
 */
const OWN_NUMBER_DIGITS = 5;

/**
 * A run of the config's own values vouches when it reads as a name or a number; a long mix of
 * letters and digits and nothing else (a redirect URI's query value, `Zq9Vv8Ww7Uu6`) could be a
 * token the target echoes back, so it does not (review 15).
 */
const tokenLike = (run: string): boolean =>
  run.length >= 8 && /^[\p{L}\p{N}]+$/u.test(run) && /\p{L}/u.test(run) && /\d/.test(run);

/**
 * Whether a folded value is the harness's text: one of the run's own values whole (its target's
 * URL, host, `host:port`, seed), or words of the harness or of the run's own values, with short
 * numbers after `.`, `:` or `/` (a version, a port, a path's), at least one word among them: a
 * value of numbers alone (`12.34.56.78`, `1234:5678:9012`) is the run's only when it is its own.
 */
/** Whether a run (or a whole value) is the run's own that vouches (tokenLike does not), or the harness's word. */
const ownText = (run: string, own: ReadonlySet<string>, words = false): boolean =>
  (words && ownWords().has(run)) || (own.has(run) && !tokenLike(run));

function harnessText(folded: string, own: ReadonlySet<string>): boolean {
  if (ownText(folded, own)) return true;
  let worded = false;
  for (const { 0: part, index } of folded.matchAll(RUN)) {
    const number = /^\d+$/.test(part);
    worded ||= !number;
    const known =
      ownText(part, own, true) ||
      (number && part.length <= OWN_NUMBER_DIGITS && '.:/'.includes(folded[index - 1] || '_'));
    if (!known) return false;
  }
  return worded;
}

/**
 * Whether a folded value with spaces reads as the harness's sentence: each run its word, one of
 * the run's own values, or a number (`2 retries`, `status 401`, `did not finish`, `1234 5678`).
 */
const sentence = (folded: string, own: ReadonlySet<string>): boolean =>
  [...folded.matchAll(RUN)].every(([run]) => /^\d+$/.test(run) || ownText(run, own, true));

/** A device user code's name (`user_code`, `userCode`), in a JSON member, a form or a query. */
const USER_CODE_NAME = /^user[\W_]*code$/i;

/**
 * The forms of a device user code a page may show: as given, and its groups joined by a dash and
 * by nothing. RFC 8628 §6.1 lets a provider separate the groups for reading as it likes
 * (`WDJB-MJHT`, `WDJB MJHT`) and the user type them with or without; the search ignores case and
 * reads past spaces (secret-index.ts), so the spaced form is the one joined by nothing. A code
 * given whole (`WDJBMJHT`) is grouped as the RFC's example is, in halves (both, when odd). Each
 * form is learned if it looks like a credential (one given spaced: unless it reads as a sentence).
 */
function userCodeForms(code: string): string[] {
  const runs = code.match(RUN) ?? [];
  const groupings =
    runs.length > 1
      ? [runs]
      : runs.length === 1 && runs[0] === code
        ? [Math.floor(code.length / 2), Math.ceil(code.length / 2)].map((half) => [
            code.slice(0, half),
            code.slice(half),
          ])
        : [];
  return [...new Set([code, ...groupings.flatMap((groups) => ['-', ''].map((s) => groups.join(s)))])];
}

/**
 * Between two letters or digits of a user code a page may put a few spaces or punctuation characters
 * (`WDJ-BMJ-HTX`, `WDJB.MJHT`, `WDJB–MJHT`, `WDJ·BMJ·HTX`), a short tag (`</span>-<span>`) or an
 * entity (`&#45;`): at most this many of them (review 19).
 */
/** The most characters of one CODE_GAP: three of its tokens, a tag of ten letters the longest. */
const CODE_GAP_MAX = 3 * '</abcdefghij>'.length;
const CODE_GAP = String.raw`(?:[\s!-%'-/:;=?@\[-\x60{-~\u00a0-\u00bf\u2000-\u206f\u3000-\u303f]|<\/?[a-zA-Z]{1,10}>|&#?[a-zA-Z0-9]{1,6};){0,3}`;

/**
 * A device user code as a page may show it, grouped and separated any way, in any case: its letters
 * and digits in order with a CODE_GAP between each two. Bounded gaps and no nested unbounded
 * quantifier: at most (length × 3 gap tokens) steps from each position, linear in the text.
 */
export function userCodePattern(code: string): RegExp | undefined {
  const chars = (code.match(RUN) ?? []).join('');
  // Each letter in both cases, and the gap's punctuation and spaces as ranges (ASCII, Latin-1, general
  // and CJK punctuation), not `i` or \p{L}: V8 compiled those for a third of a second per exchange.
  const cased = [...chars].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
  return chars.length < MIN_REMEMBERED ? undefined : new RegExp(cased.join(CODE_GAP), 'gu');
}

/**
 * A user code as the redaction masks it (maskCode): its pattern tried at one place at a time, over
 * at most the characters a match spans, where its first letter (in either case) stands.
 */
export function userCodeMasking(code: string): CodePattern | undefined {
  const pattern = userCodePattern(code);
  if (!pattern) return undefined;
  const chars = (code.match(RUN) ?? []).join('');
  const first = String.fromCodePoint(chars.codePointAt(0)!);
  return {
    pattern: new RegExp(pattern.source, 'uy'),
    reach: chars.length + (chars.length - 1) * CODE_GAP_MAX,
    starts: new Set([...(first.toLowerCase() + first.toUpperCase())].map((c) => c.codePointAt(0)!)),
  };
}

/** The most user codes a run keeps as patterns (a few per device flow), the oldest forgotten first. */
const CODES_MAX = 64;

/**
 * The run's own values (`createRedactor`'s `own`) as harnessText compares them: each whole, a URL's
 * host, `host:port` and origin, a path's segments and tails (wholes), and their runs of letters and digits.
 */
function ownForms(values: ReadonlyArray<string | number>): Set<string> {
  const forms = new Set<string>();
  for (const value of values) {
    const whole = String(value).toLowerCase();
    const parts = [whole];
    if (URL.canParse(whole)) {
      const url = new URL(whole);
      parts.push(url.host, url.hostname, url.origin, url.pathname);
    }
    for (const part of parts.flatMap(wholes)) forms.add(part);
    for (const [run] of whole.matchAll(RUN)) forms.add(run);
  }
  return forms;
}

/**
 * The strings and numbers of a tree (the target config): what a report may quote of it. A run's
 * `own` values come from here, not from a hand list that drifts (review 14: the issuer, the
 * fixtures' projects and branches were left out); the config's secrets among them are the ones
 * createRedactor pins, and it leaves those out.
 */
export function scalarsOf(tree: unknown): Array<string | number> {
  if (typeof tree === 'string' || typeof tree === 'number') return [tree];
  if (!tree || typeof tree !== 'object') return [];
  return Object.values(tree).flatMap(scalarsOf);
}

/** Bodies larger than this are not searched for secrets to learn: token responses are small. */
export const LEARN_BODY_LIMIT = 16 * 1024;
/** A body that names none of these carries no secret field worth parsing it for. */
const SECRETISH = /token|secret|password|passwd|code|verifier|key/i;
/** Bodies in a report are cut here; a page of HTML says nothing more after it. */
export const BODY_LIMIT = 2000;
/** Header values in a report are cut here (a Link header of a few long URLs fits). */
export const HEADER_VALUE_LIMIT = 4000;
/**
 * The most headers a recorded part keeps, and the most characters of their names and values (each
 * value counted as the report shows it, HEADER_VALUE_LIMIT at most): a target sending a thousand
 * headers of 70 bytes made 105 KB of report per exchange shown (review 16), and at its header limit
 * a report could pass what `report merge` reads. Two values cut at HEADER_VALUE_LIMIT fit (a Link
 * header of a few long URLs). Only the kept copy is bounded: the checks read every header the
 * target sent.
 */
export const KEPT_HEADERS = { count: 64, characters: 8 * 1024 };
/** The entry that says how many headers a kept part left out (no header's name: a name has no space). */
export const LEFT_OUT_HEADERS = '(headers left out)';

/**
 * What one run's report shows of exchanges, in JSON characters. Each exchange is bounded (a URL and
 * header values cut to HEADER_VALUE_LIMIT, KEPT_HEADERS, a body to BODY_LIMIT), but a target failing
 * every check with six exchanges of bodies JSON escapes sixfold (control characters) made about 40 MB
 * of them, past what `report merge`, `--rerun-failed` and `--from` read (MAX_REPORT_BYTES, 16 MiB).
 */
export const SHOWN_EXCHANGE_CHARS = 8 * 1024 * 1024;
/** The request line an exchange past the budget keeps (its URL cut to this). */
const BRIEF_URL_LIMIT = 200;

/**
 * The run's exchanges as its report shows them, in the order the checks end: whole while they fit
 * in `budget`, then only their method, URL (cut), status and one entry saying why the rest is left out.
 */
export function createExchangeBudget(budget = SHOWN_EXCHANGE_CHARS): (exchange: Exchange) => Exchange {
  let left = budget;
  const why = { [LEFT_OUT_HEADERS]: `left out: the run's report shows ${budget} characters of exchanges` };
  return (exchange) => {
    const size = JSON.stringify(exchange).length;
    if (size <= left) {
      left -= size;
      return exchange;
    }
    left = 0;
    const { request, response } = exchange;
    const url =
      request.url.length > BRIEF_URL_LIMIT ? `${request.url.slice(0, BRIEF_URL_LIMIT)}… truncated` : request.url;
    return {
      request: { method: request.method, url, headers: why },
      ...(response ? { response: { status: response.status, headers: why } } : {}),
    };
  };
}

/**
 * What a recorded exchange keeps of a body or header value, and what redaction reads before the
 * cut to what is shown: a secret that straddles the shown cut is still seen whole and masked, and
 * no pattern ever runs over megabytes a target sent.
 */
export const RECORD_LIMIT = BODY_LIMIT + 16 * 1024;

/** Bytes a recorded part had before `keep` cut it, for the "truncated" note (the part itself no longer knows). */
const sentBytes = new WeakMap<object, Map<string, number>>();

/**
 * A copy of `text` that shares no memory with what it was cut from: V8 makes a slice a view of
 * its parent, so the first kilobytes of a 7 MB body would keep all 7 MB alive for the whole run.
 */
export const ownCopy = (text: string): string => Buffer.from(text, 'utf16le').toString('utf16le');

const cut = (value: string, sizes: Map<string, number>, key: string): string => {
  if (value.length <= RECORD_LIMIT) return value;
  sizes.set(key, Buffer.byteLength(value));
  return ownCopy(value.slice(0, RECORD_LIMIT));
};

/**
 * Headers that framing or a check reads beyond the ones the API description declares
 * (responseHeaderNames): a kept part shows all these before any other.
 */
const FRAMING_HEADERS = [
  'content-type',
  'content-length',
  'set-cookie',
  'refresh',
  'retry-after',
  'x-ratelimit-remaining',
];
let protocolHeaders: Set<string> | undefined;
const isProtocolHeader = (name: string): boolean =>
  (protocolHeaders ??= new Set([...FRAMING_HEADERS, ...responseHeaderNames()])).has(name.toLowerCase());

/**
 * The headers a kept part shows (KEPT_HEADERS, in the order recorded, a run's by name; one that
 * does not fit is left out, a later one that does is kept), then one entry saying how many were
 * left out and their bytes. The protocol headers (isProtocolHeader) take the budget first, the
 * shortest first: 64 headers `a-00`… sorted before Cache-Control left the one a failure judged out
 * of the exchange shown for it (review 19). Kept again, a part keeps its entry as it was: what it
 * kept fits.
 */
function keptHeaders(headers: Record<string, string>, sizes: Map<string, number>): Array<[string, string]> {
  const said = headers[LEFT_OUT_HEADERS];
  const entries = Object.entries(headers).filter(([name]) => name !== LEFT_OUT_HEADERS);
  const size = ([name, value]: [string, string]) => name.length + Math.min(value.length, HEADER_VALUE_LIMIT);
  const first = entries.filter(([name]) => isProtocolHeader(name)).sort((a, b) => size(a) - size(b));
  const shown = new Set<string>();
  let characters = 0;
  let left = 0;
  let bytes = 0;
  for (const entry of [...first, ...entries.filter(([name]) => !isProtocolHeader(name))]) {
    const [name, value] = entry;
    if (shown.size < KEPT_HEADERS.count && characters + size(entry) <= KEPT_HEADERS.characters) {
      shown.add(name);
      characters += size(entry);
    } else {
      left++;
      bytes += Buffer.byteLength(name) + (sizes.get(`h:${name}`) ?? Buffer.byteLength(value));
    }
  }
  const kept = entries.filter(([name]) => shown.has(name));
  const note = left ? `${plural(left, 'more header')} (${bytes} bytes) left out` : said;
  return note === undefined ? kept : [...kept, [LEFT_OUT_HEADERS, note]];
}

/** A recorded part: a request has a URL, which a target may make as long as a body (a form's action). */
type Part = { url?: string; headers: Record<string, string>; body?: string };

/** The exchange as a recorder holds it: long URLs, bodies and header values cut to RECORD_LIMIT. */
export function keep(exchange: Exchange): Exchange {
  const part = <T extends Part>(p: T): T => {
    // Cut again, a part keeps the sizes noted the first time.
    const sizes = new Map(sentBytes.get(p));
    const headers = Object.fromEntries(keptHeaders(p.headers, sizes).map(([k, v]) => [k, cut(v, sizes, `h:${k}`)]));
    const kept = {
      ...p,
      ...(p.url !== undefined ? { url: cut(p.url, sizes, 'url') } : {}),
      headers,
      ...(p.body !== undefined ? { body: cut(p.body, sizes, 'body') } : {}),
    };
    if (sizes.size) sentBytes.set(kept, sizes);
    return kept;
  };
  return { request: part(exchange.request), ...(exchange.response ? { response: part(exchange.response) } : {}) };
}

/** The note `clip` ends a value it cut with. */
const CLIPPED = /… truncated, \d+ bytes$/;

/** Cut to `limit` for the report, saying how much the target sent; a value cut so already (a saved report shown again) stays as it is. */
function clip(value: string, limit: number, sent: number | undefined): string {
  if (value.length <= limit && sent === undefined) return value;
  const said = sent === undefined && CLIPPED.exec(value);
  if (said && said.index <= limit) return value;
  return `${value.slice(0, limit)}… truncated, ${sent ?? Buffer.byteLength(value)} bytes`;
}

/** The URL, bodies and header values of a redacted part cut for the report; `original` is the recorded part. */
function clipPart<T extends Part>(safe: T, original: object): T {
  const sizes = sentBytes.get(original);
  const headers = Object.fromEntries(
    Object.entries(safe.headers).map(([k, v]) => [k, clip(v, HEADER_VALUE_LIMIT, sizes?.get(`h:${k}`))]),
  );
  return {
    ...safe,
    // A URL is cut as a header value is (a consent form's action of a megabyte made 7 MB reports).
    ...(safe.url !== undefined ? { url: clip(safe.url, HEADER_VALUE_LIMIT, sizes?.get('url')) } : {}),
    headers,
    ...(safe.body !== undefined ? { body: clip(safe.body, BODY_LIMIT, sizes?.get('body')) } : {}),
  };
}

/**
 * An exchange as a report shows it: cut to RECORD_LIMIT and KEPT_HEADERS (keep) before it is
 * masked (`mask`: redaction reads at most RECORD_LIMIT), then its values to what a report shows
 * (clipPart). A run's redactor shows exchanges through it as it records them, and a saved report
 * is shown through it again when rendered (boundReport: one made by hand may hold megabytes).
 */
export function shownExchange(exchange: Exchange, mask: (kept: Exchange) => Exchange): Exchange {
  const kept = keep(exchange);
  const safe = mask(kept);
  return {
    request: clipPart(safe.request, kept.request),
    ...(safe.response && kept.response ? { response: clipPart(safe.response, kept.response) } : {}),
  };
}

function header(headers: Record<string, string>, name: string): string {
  // Stryker disable next-line StringLiteral: an absent type reads as neither JSON nor form, like any other
  return Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? '';
}

/**
 * `initial`: the config's secrets, masked whatever their shape and length (see createSecretIndex
 * for the shortest). `own`: the run's own values a report shows (its seed, the target's URL, the
 * config's values: scalarsOf), which a target cannot make the run learn as credentials; those of
 * `initial` among them are left out.
 */
export function createRedactor(
  initial: Array<string | undefined> = [],
  own: Array<string | number | undefined> = [],
): Redactor {
  // A pinned secret the config also holds elsewhere stays a secret: `own` never vouches for it.
  const ownParts = ownForms(own.filter((v): v is string | number => v !== undefined && !initial.includes(String(v))));
  /** Every string masked by value: the config's secrets (pinned), then what the run learned, with their forms. */
  const secrets = createSecretIndex(MIN_REMEMBERED);
  /** Names masked since the run last learned a secret (`name`), each as `text` masked it. */
  const names = new Map<string, string>();
  /** Each learned value and the strings it added to `secrets`, oldest first (a Map keeps insertion order). */
  const learned = new Map<string, string[]>();
  /** Values masked only where they stand as a value (learnedAs), the oldest forgotten past LEARNED_MAX. */
  const asValues = createSecretIndex(MIN_REMEMBERED);
  /** Adds `value` and its encoded forms; returns the strings that were new (none: nothing learned). */
  const add = (value: string | undefined | null, pinned = false): string[] => {
    if (typeof value !== 'string' || !value || (!pinned && value.length < MIN_REMEMBERED) || secrets.has(value))
      return [];
    // A target may echo it encoded (base64 of a header, of a form body): those forms are masked too.
    return [value, ...encodedForms(value)].filter((form) => secrets.add(form, pinned));
  };
  for (const value of initial) add(value, true);
  /**
   * A value of the harness's words: it and its escaped forms (`oauth%2Ftoken`, `oauth\/token`) are
   * masked where they stand as a value; its base64 and hex forms, never the harness's words, wherever
   * they are (inside a longer base64 value: review 19). Returns the strings added to `secrets`.
   */
  const addAsValue = (value: string): string[] => {
    const escaped = (form: string) => form === value || /[%\\]/.test(form);
    for (const form of [value, ...encodedForms(value)].filter(escaped)) asValues.add(form);
    while (asValues.size > LEARNED_MAX) {
      const [oldest] = asValues;
      asValues.delete(oldest);
    }
    return encodedForms(value).filter((form) => !escaped(form) && secrets.add(form));
  };
  /** Learns a value the target chose (a token, a code, a value it asked the harness to send back): as learnedAs says. */
  const remember = (value: string | undefined | null, min = MIN_REMEMBERED, userCode = false): boolean => {
    if (typeof value !== 'string') return false;
    const where = learnedAs(value, min, ownParts, userCode);
    if (where === undefined) return false;
    const added = where === 'anywhere' ? add(value) : addAsValue(value);
    if (!added.length) return false;
    names.clear();
    learned.set(value, added);
    if (learned.size > LEARNED_MAX) {
      const [oldest, strings] = learned.entries().next().value!;
      learned.delete(oldest);
      for (const form of strings) secrets.delete(form);
    }
    return true;
  };
  /** Secret-named values the exchange being learned may still offer (LEARNED_PER_EXCHANGE), learned or not. */
  let left = 0;
  /**
   * Learning what the harness itself sent (a request's headers and body): its own credentials are
   * the config's, masked already; the rest the target chose (tokens, codes, a csrf value, a cookie)
   * must look like a credential as in its answers, shorter ones too: a target issuing the token
   * `expected`, or a hidden csrf_token `Approval`, blanked the harness's own words once sent back.
   */
  let sent = false;
  const min = () => (sent ? MIN_REMEMBERED : CREDENTIAL_MIN);
  /** Learned user codes as patterns (userCodePattern), by their source, with the most characters a match spans. */
  const codes = new Map<string, CodePattern>();
  /** `name`: the value's (a user code is learned in each of its forms, and as a pattern). */
  const learnValue = (value: string, name = '') => {
    if (left <= 0) return;
    left--;
    const userCode = USER_CODE_NAME.test(name);
    const code = userCode && learnedAs(value, min(), ownParts, true) === 'anywhere' && userCodeMasking(value);
    if (code) {
      codes.set(code.pattern.source, code);
      names.clear();
      if (codes.size > CODES_MAX) codes.delete(codes.keys().next().value!);
    }
    for (const form of userCode ? userCodeForms(value) : [value]) remember(form, min(), userCode);
  };
  const options = {
    secrets,
    values: asValues,
    codes: { [Symbol.iterator]: () => codes.values() },
  };

  /** Learn the secret values of `name=value` pairs (query strings, form bodies). */
  const learnPairs = (search: string) => {
    for (const pair of search.split('&')) {
      // Past what one exchange may teach, the rest of a flood is not even decoded.
      if (left <= 0) return;
      const eq = pair.indexOf('=');
      // isSecretName decodes a name itself and ignores its punctuation, '+' for a space included.
      // Stryker disable next-line EqualityOperator: a pair starting with '=' has an empty name, never a secret one
      const name = pair.slice(0, eq);
      if (eq < 0 || !isSecretName(name)) continue;
      try {
        learnValue(decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' ')), name);
      } catch {
        /* malformed escapes: the pattern-based masking still applies */
      }
    }
  };
  const learnJson = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      // Stryker disable next-line ConditionalExpression: isSecretName(undefined) reads "undefined", no secret name
      if (key !== undefined && isSecretName(key)) learnValue(value, key);
      // A URL the answer gives (verification_uri_complete) carries its secrets as a Location does.
      else if (/^https?:\/\//i.test(value)) learnUrl(value);
    } else if (Array.isArray(value)) value.forEach((v) => learnJson(v, key));
    // Any other value but null: the entries of a number or a boolean are none.
    else if (value) for (const [k, v] of Object.entries(value)) learnJson(v, k);
  };
  /** The query and the fragment (a front-channel answer may carry a token there, query or not). */
  const learnUrl = (url: string) => {
    const q = url.search(/[?#]/);
    if (q >= 0) learnPairs(url.slice(q + 1).replace(/#/g, '&'));
  };
  const learnHeaders = (headers: Record<string, string>) => {
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') learnValue(value.replace(/^\s*\S+\s+/, ''));
      else if (lower === 'location') learnUrl(value);
      // A Refresh header sends the browser on as a Location does (`0;url='…?code=…'`, onwardOf): its
      // URL as the browser reads it, unquoted (review 19: the code was learned with its quote), whatever its delay.
      else if (lower === 'refresh') learnUrl(refreshOf(value, Infinity)?.url ?? '');
      else if (isSecretName(lower)) learnValue(value);
    }
  };
  const learnBody = (body: string | undefined, contentType: string) => {
    if (!body || body.length > LEARN_BODY_LIMIT || !SECRETISH.test(body) || tooDeep(body)) return;
    if (contentType.includes('json')) {
      try {
        learnJson(JSON.parse(body));
      } catch {
        /* not JSON after all */
      }
    } else if (contentType.includes('x-www-form-urlencoded')) learnPairs(body);
    // A page's meta refresh sends the browser on as the header does (review 19).
    else if (contentType.includes('html')) learnUrl(metaRefresh(body, Infinity) ?? '');
  };

  return {
    remember(value) {
      remember(value);
    },
    learn({ request, response }) {
      left = LEARNED_PER_EXCHANGE;
      // A request's URL may be the target's (a redirect followed): learned as the target's answers are.
      learnUrl(request.url);
      sent = true;
      learnHeaders(request.headers);
      learnBody(request.body, header(request.headers, 'content-type'));
      sent = false;
      if (response) {
        learnHeaders(response.headers);
        learnBody(response.body, header(response.headers, 'content-type'));
      }
    },
    get size() {
      return secrets.size;
    },
    get reach() {
      return Math.max(secrets.longest, asValues.longest, ...[...codes.values()].map(({ reach }) => reach));
    },
    text: (text, cut = false) => redactText(text, cut ? { ...options, cut } : options),
    name(text) {
      let masked = names.get(text);
      if (masked === undefined) {
        masked = redactText(text, options);
        if (names.size >= NAMES_KEPT) names.clear();
        names.set(text, masked);
      }
      return masked;
    },
    url: (url) => redactUrl(url, options),
    exchange: (exchange) => shownExchange(exchange, (kept) => redactExchange(kept, options)),
  };
}
