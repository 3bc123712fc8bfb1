/**
 * Secret masking, one implementation for the whole tool: the runner redacts exchanges when it
 * captures them, and every reporter passes the report through `redact` again before rendering
 * (defence in depth). All helpers are pure and idempotent: redacting twice changes nothing more.
 *
 * A secret keeps a fixed-length prefix (enough to tell two tokens apart in a report) followed by
 * `…`; a value too short for that prefix to be safe is masked whole.
 */
import { MAX_JSON_DEPTH, looksLikeJson, tooDeep } from './json-depth.js';
import type { Exchange, Report } from './model.js';
import { createSecretIndex, isSecretIndex, type SecretIndex } from './secret-index.js';
import {
  bearerTokens,
  cutJwtStart,
  headerLines,
  jwtSpans,
  maskCode,
  pairHead,
  pairValue,
  userinfoSpans,
  type CodePattern,
} from './credential-reading.js';

export const MASK = '…';
/** Characters of a secret kept in reports. */
export const KEPT_PREFIX = 4;
/** Values shorter than this are masked whole, so the kept prefix never reveals most of a secret. */
const MIN_LENGTH_FOR_PREFIX = KEPT_PREFIX * 3;

export interface RedactOptions {
  /**
   * Exact secret values known to the caller (tokens it minted, configured passwords): masked
   * wherever they occur. An index (the run's redactor keeps one) is searched as it is; a list is
   * indexed for the call.
   */
  secrets?: Iterable<string>;
  /**
   * Exact values masked only where they stand as a value (standsAsValue; a whole header value or
   * JSON string of an exchange): credentials the target made of the harness's own words
   * (`oauth-token`), which its sentences keep.
   */
  values?: Iterable<string>;
  /**
   * Patterns masked wherever they match: a learned device user code by its letters and digits,
   * whatever a page puts between them (the run's redactor: userCodePattern).
   */
  codes?: Iterable<CodePattern>;
  /**
   * Set by redactExchange: the text is an exchange's (values, not the harness's sentences), where
   * `values` are masked wherever nothing of a value touches them (`token X` in a header or a page).
   */
  exchange?: boolean;
  /**
   * The text was cut at its end before masking (cut.ts, maskedHead): a match the end interrupts
   * (a quoted value, a JWT before its dots, a URL's password before its `@`, a word that may have
   * gone on as a credential) is masked as if it went on.
   */
  cut?: boolean;
}

/**
 * The key length of a list of exact secrets indexed for one call; a shorter one is searched for on
 * its own, and below four characters masked only where it stands alone (secret-index.ts, WHOLE_WORD_BELOW).
 */
const MIN_SECRET = 3;

const indexOf = (secrets: Iterable<string>): SecretIndex =>
  isSecretIndex(secrets) ? secrets : createSecretIndex(MIN_SECRET, secrets);

/** `text` with each occurrence of an exact secret masked (where `at` says so), in one pass over it. */
function maskSecrets(
  text: string,
  secrets: Iterable<string>,
  at: (text: string, start: number, end: number) => boolean = () => true,
): string {
  let out = '';
  let copied = 0;
  for (const { start, end, secret } of indexOf(secrets).spans(text)) {
    if (isMasked(secret) || !at(text, start, end)) continue;
    out += text.slice(copied, start) + mask(secret);
    copied = end;
  }
  return copied ? out + text.slice(copied) : text;
}

/**
 * What comes before a value where it stands as one: `=` or `:` (a query, a form, a cookie, an
 * attribute, `token: X`, `t = X`), maybe spaced, maybe quoted (a JSON member), `Bearer `.
 */
const VALUE_BEFORE = /(?:[=:][ \t]*(["']?)|\bBearer[ \t]+)$/i;
/** A character that would go on the value: the occurrence is part of a longer one then. */
const VALUE_CHAR = /[\p{L}\p{N}\-._~+/%]/u;
/** Characters that enclose a value on both sides: quotes, brackets, a tag's `>` and the next `<`. */
const ENCLOSING: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '`': '`',
  '(': ')',
  '[': ']',
  '{': '}',
  '<': '>',
  '>': '<',
};

/**
 * Whether `text[start, end)` stands as a whole value, not as words of a sentence or a part of a
 * longer value (`oauth-token-2`, a check id's `.x.`): after VALUE_BEFORE, enclosed (ENCLOSING), a
 * path's later segment (`/api/v4/user/X`, `/tokens/X/revoke`: the harness's paths are its literals,
 * never learned), or in an exchange (`apart`) wherever nothing of a value touches it (`token X`).
 */
function standsAsValue(text: string, start: number, end: number, apart = false): boolean {
  const after = text[end] ?? '';
  const segment = text[start - 1] === '/' && VALUE_CHAR.test(text[start - 2] ?? '');
  if (VALUE_CHAR.test(after)) return after === '/' && segment;
  const before = VALUE_BEFORE.exec(text.slice(Math.max(0, start - 16), start));
  if (before) return !before[1] || after === before[1];
  const open = text[start - 1];
  return segment || (open !== undefined && ENCLOSING[open] === after) || (apart && !VALUE_CHAR.test(open ?? ''));
}

/** Whether `text` is one of `values` whole (a header's value, a JSON string of an exchange). */
const wholeValue = (text: string, values: Iterable<string> | undefined): boolean =>
  values !== undefined &&
  indexOf(values)
    .spans(text)
    .some((span) => span.start === 0 && span.end === text.length);

/** The masked form of one secret value. */
export function mask(value: string): string {
  if (isMasked(value)) return value;
  return value.length >= MIN_LENGTH_FOR_PREFIX ? value.slice(0, KEPT_PREFIX) + MASK : MASK;
}

function isMasked(value: string): boolean {
  return value.endsWith(MASK) && value.length <= KEPT_PREFIX + MASK.length;
}

/**
 * Protocol vocabulary that may follow a secret-looking name in a message ("error code:
 * invalid_grant", "token: expired") and carries no secret.
 */
const VOCABULARY = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'authorization_pending',
  'slow_down',
  'expired_token',
  'invalid_token',
  'insufficient_scope',
  'server_error',
  'temporarily_unavailable',
  'unsupported_response_type',
  'bearer',
  'Bearer',
  'S256',
  'plain',
  'expired',
  'revoked',
  'missing',
  'unknown',
  'invalid',
  'valid',
  'absent',
  'present',
]);

/** Values that carry no secret even under a secret-looking name (a status code, a JSON literal, an error code). */
export function harmless(value: string): boolean {
  return (
    value === '' ||
    isMasked(value) ||
    VOCABULARY.has(value) ||
    /^(null|true|false|undefined|\d{1,7})$/.test(value) ||
    // A placeholder the harness wrote where it left a value out: redacted, [REDACTED]...
    /^\[?(redacted|REDACTED)\]?$/.test(value)
  );
}

const SECRET_NAMES = new Set([
  'code',
  'devicecode',
  'usercode',
  'authorizationcode',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
]);
const SECRET_SUFFIXES = ['token', 'secret', 'password', 'passwd', 'verifier', 'apikey', 'privatekey'];

/**
 * Whether a parameter, field or header name holds a secret: access_token, refresh_token,
 * id_token, client_secret, password, code, code_verifier, device_code, token, PRIVATE-TOKEN,
 * clientSecret, user[password], authenticity_token... Names are compared without case and
 * punctuation, and `a[b]` is judged by `b`.
 */
export function isSecretName(name: string): boolean {
  // The same few names (JSON members, headers, parameters) are asked about for every exchange.
  const known = secretNames.get(name);
  if (known !== undefined) return known;
  const secret = judgeName(name);
  if (name.length <= 64) {
    if (secretNames.size >= 4096) secretNames.clear();
    secretNames.set(name, secret);
  }
  return secret;
}

/** Names already judged: short ones only, and at most 4,096, since a target chooses them. */
const secretNames = new Map<string, boolean>();

function judgeName(name: string): boolean {
  let key = name;
  try {
    key = decodeURIComponent(name);
  } catch {
    // keep the raw name
  }
  const bracket = /\[([^\][]*)\]$/.exec(key);
  if (bracket && bracket[1] !== '') key = bracket[1];
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(normalized) || SECRET_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

// ---------------------------------------------------------------------------------------------
// Text

/*
 * Header-style credentials in free text (`Authorization: Bearer x`, `PRIVATE-TOKEN: x`, `Cookie:
 * a=b`), bare `Bearer <token>`s, URL userinfo (scheme://user:password@host), JSON Web Tokens anywhere (id_token, signed access
 * tokens) and `name=value`, `name: value`, `"name": "value"`, `name="value"` in text, query
 * strings, form bodies, JSON and logs are read by hand, their steps counted (credential-reading.ts:
 * headerLines, bearerTokens, userinfoSpans, jwtSpans, cutJwtStart, pairHead, pairValue).
 */
/** HTML fields: <input name="authenticity_token" value="...">, <meta name="csrf-token" content="...">. */
const INPUT_TAG = /<(?:input|meta)\b[^<>]{0,2000}>/gi;

/**
 * Masks everything in `text` that looks like a secret: credential headers, Bearer tokens, JWTs,
 * URL passwords, secret-named parameters and fields in any common notation, hidden form fields,
 * and the exact values in `options.secrets`.
 */
export function redactText(text: string, options: RedactOptions = {}): string {
  // Only a text masked by patterns alone is cached as clean: learned secrets, values and codes change.
  const plain = !options.secrets && !options.values && !options.codes;
  if (plain && text.length <= CLEAN_TEXT_MAX && cleanTexts.has(text)) return text;
  let known = options.secrets ? maskSecrets(text, options.secrets) : text;
  for (const code of options.codes ?? []) known = maskCode(known, code, MASK); // whole: a tag between groups would make the kept prefix a group
  const at = (t: string, start: number, end: number) => standsAsValue(t, start, end, options.exchange);
  const out = maskPatterns(options.values ? maskSecrets(known, options.values, at) : known, options.cut);
  if (plain && out === text && text.length <= CLEAN_TEXT_MAX) {
    if (cleanTexts.size >= CLEAN_TEXTS) cleanTexts.clear();
    cleanTexts.add(text);
  }
  return out;
}

/**
 * Short texts the patterns left as they were: a report's rule titles, sources, ids and statuses
 * are the same in every run's report, and each report is redacted for the console and for each
 * file written (about 4 ms a time for the 250 rules). Only texts with nothing to mask are kept,
 * so no secret stays here; bounded (at most 5,000 texts of 256 characters, 2.5 MB), cleared when full.
 */
const cleanTexts = new Set<string>();
const CLEAN_TEXT_MAX = 256;
const CLEAN_TEXTS = 5_000;

function maskPatterns(text: string, cut = false): string {
  let out = text;
  const at = (spans: Array<[number, number]>, by: (value: string) => string) =>
    spans.map(([start, end]): Replacement => [start, end, by(out.slice(start, end))]);
  out = replaced(out, at(jwtSpans(out), mask));
  if (cut) {
    const start = cutJwtStart(out);
    if (start !== undefined) out = out.slice(0, start) + mask(out.slice(start));
  }
  for (const kind of ['authorization', 'token'] as const)
    out = replaced(
      out,
      at(
        headerLines(out, kind).map(({ value, end }) => [value, end]),
        maskUnlessHarmless,
      ),
    );
  out = replaced(
    out,
    headerLines(out, 'cookie').map(({ name, value, end }) => [
      value,
      end,
      redactCookie(out.slice(value, end), name.toLowerCase() === 'set-cookie'),
    ]),
  );
  out = replaced(
    out,
    at(bearerTokens(out), (token) => (looksLikeCredential(token) ? mask(token) : token)),
  );
  out = replaced(
    out,
    at(
      userinfoSpans(out, cut).map(({ password, passwordEnd }) => [password, passwordEnd]),
      mask,
    ),
  );
  out = out.replace(INPUT_TAG, redactInputTag);
  return redactPairs(out, cut);
}

/** A span of a text, `[start, end)`, and what replaces it. */
type Replacement = [start: number, end: number, by: string];

/** `text` with each span replaced (left to right, apart). */
function replaced(text: string, replacements: Replacement[]): string {
  let out = '';
  let copied = 0;
  for (const [start, end, by] of replacements) {
    out += text.slice(copied, start) + by;
    copied = end;
  }
  return copied ? out + text.slice(copied) : text;
}

/**
 * After "Bearer" in prose a word is only masked when it looks random: long, or with a digit
 * ("Bearer tokens" stays readable). Header values are masked whatever their shape.
 */
function looksLikeCredential(token: string): boolean {
  // A masked token ("abcd…") is too short to qualify, so masking stays idempotent.
  return token.length >= 16 || (token.length >= 8 && /\d/.test(token));
}

function maskUnlessHarmless(value: string): string {
  return harmless(value) ? value : mask(value);
}

/**
 * Masks the values of secret-named pairs. A pair with another name ("http://...", "page=2") is
 * skipped by its head only, so a secret pair inside its value (a URL's query) is still found.
 */
function redactPairs(text: string, cut: boolean): string {
  let out = '';
  let copied = 0;
  for (let m = pairHead(text, 0); m;) {
    let next = m.end;
    const v = isSecretName(m.name) && !headerStyle(m.name) ? pairValue(text, m.end, cut) : undefined;
    // `code: expected …` is a sentence, not a field: in prose only a value shaped like a credential goes.
    const prose = v?.bare !== undefined && m.quote === '' && m.separator.includes(':');
    // A word the cut ended may have gone on as a credential (`code: abc` of `abc123…`).
    if (v && !(prose && !(cut && v.end === text.length) && !credentialShaped(v.bare!))) {
      // A quote the cut left open stays open: masking never lengthens a text (cut.ts, maskedHead).
      const close = (q: string) => (v.whole.length > 1 && v.whole.endsWith(q) ? q : '');
      const value =
        v.dq !== undefined
          ? `"${maskUnlessHarmless(v.dq)}${close('"')}`
          : v.sq !== undefined
            ? `'${maskUnlessHarmless(v.sq)}${close("'")}`
            : maskUnlessHarmless(v.bare!);
      out += text.slice(copied, m.end) + value;
      copied = next = v.end;
    }
    m = pairHead(text, next);
  }
  return out + text.slice(copied);
}

/**
 * After `name: ` in prose, the harness's own words stay: a word (with its punctuation), a path,
 * an error code such as ERR_JWS_INVALID or invalid_grant (an OAuth code: lower_snake words), a URL
 * (its secret parameters are masked on their own). Exact secrets the run learned (the config's
 * password and client secrets, every token it was issued) are masked by value before this,
 * wherever they are; what the simulator issues is random base64url, never lower_snake words alone.
 */
function credentialShaped(value: string): boolean {
  // (A harmless value may come out true: maskUnlessHarmless keeps it all the same.)
  if (/^[A-Za-z]+(?:-[A-Za-z]+)*[,.;:!?]*$/.test(value)) return false;
  if (/^[a-z]+(?:_[a-z]+)+[,.;:!?]*$/.test(value)) return false;
  if (value.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  return !/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value);
}

/** Header-style names, handled (scheme and cookie names kept) by their own patterns. */
function headerStyle(name: string): boolean {
  const lower = name.toLowerCase();
  return HEADER_WITH_SCHEME.has(lower) || COOKIE_HEADERS.has(lower);
}

function redactInputTag(tag: string): string {
  const name = /\bname\s*=\s*["']([^"']*)["']/i.exec(tag);
  if (!name || !isSecretName(name[1])) return tag;
  return tag.replace(
    /(\b(?:value|content)\s*=\s*)(["'])([^"']*)\2/i,
    (_m, head: string, q: string, value: string) => `${head}${q}${maskUnlessHarmless(value)}${q}`,
  );
}

/** `a=1; b=2` (Cookie) or `name=value; Path=/; HttpOnly` (Set-Cookie): every value masked, names and attributes kept. */
function redactCookie(value: string, isSetCookie: boolean): string {
  if (isSetCookie) {
    // Only the first pair is the cookie; the rest are attributes (Path, Expires...).
    return value.replace(
      /(?<![^=;\s])([^=;\s]+=)([^;]*)/,
      (_m, head: string, v: string) => `${head}${maskUnlessHarmless(v)}`,
    );
  }
  return value.replace(
    /(^|;\s*)([^=;\s]+=)([^;]*)/g,
    (_m, lead: string, head: string, v: string) => `${lead}${head}${maskUnlessHarmless(v)}`,
  );
}

/**
 * Several Set-Cookie headers may arrive joined by newlines or by ", " (Headers.get); a comma
 * followed by `name=` starts the next cookie (the comma of an Expires date does not).
 */
function redactSetCookies(value: string): string {
  return value
    .split(/(\n|,\s*(?=[^\s;=,]+=))/) // separators kept (they hold no `=`, so pass through)
    .map((part) => redactCookie(part, true))
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Encoded secrets

/** Encoded forms shorter than this are not worth masking: they would match ordinary base64 by chance. */
const MIN_ENCODED = 8;

/** `text` inside a JSON string as JSON.stringify writes it, and as PHP's json_encode does (`/` as `\/`). */
function jsonForms(text: string): string[] {
  const quoted = JSON.stringify(text).slice(1, -1);
  return [quoted, quoted.replace(/\//g, '\\/')];
}

/**
 * The percent-encoded, hex and JSON-escaped forms of a secret, and the base64 and base64url forms it takes inside an encoded value: base64 of a Basic
 * `client_id:client_secret`, of an Authorization value (`Bearer <token>`), of a form body that a
 * target echoes back. Base64 writes 3 bytes as 4 characters, so a secret at any offset encodes, but
 * for the groups it shares with its neighbours, to one of three cores: its bytes from offset 0, 1
 * or 2, cut to whole groups. Masking the cores leaves at most two bytes of the secret at each end,
 * as readable as the kept prefix of a plain secret. Learned with each secret (createRedactor).
 */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  // Byte by byte, so the secret encodes the same wherever it sits: in a URL (encodeURIComponent
  // keeps `~`), in a form body (URLSearchParams writes `~` as %7E, a space as +), every byte
  // %xx, and hex. The search ignores ASCII case (secret-index.ts), so %7e and %7E, hex and HEX.
  const forms = new Set<string>(
    [
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
      bytes.toString('hex'),
      // As JSON writes it: a `"`, `\` or control character escaped (the harness's quoting,
      // JSON.stringify), a `/` too (PHP's json_encode); and either quoted again (a JSON body quoted
      // whole in a message or a detail).
      ...jsonForms(secret).flatMap((once) => [once, ...jsonForms(once)]),
    ].filter((form) => form !== secret && form.length >= MIN_ENCODED),
  );
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + Math.floor(Math.max(0, bytes.length - skip) / 3) * 3);
    // Whole groups need no padding, so the base64 core is found inside a padded encoding too.
    const core = whole.toString('base64');
    if (core.length < MIN_ENCODED) continue;
    forms.add(core);
    forms.add(whole.toString('base64url'));
  }
  return [...forms];
}

// ---------------------------------------------------------------------------------------------
// URLs, headers, bodies

/**
 * A URL with secret query and fragment parameters (access_token, code, private_token...) and any
 * userinfo password masked. The rest of the URL is kept byte for byte (raw encodings matter to
 * the encoding checks), so no URL parsing or re-serialisation happens here.
 */
export function redactUrl(url: string, options: RedactOptions = {}): string {
  return redactText(url, options);
}

const HEADER_WITH_SCHEME = new Set(['authorization', 'proxy-authorization']);
const COOKIE_HEADERS = new Set(['cookie', 'set-cookie']);

/** `Bearer abc…`: an Authorization value keeps its scheme, the credential is masked. */
function maskCredential(value: string): string {
  const m = /^(\s*[A-Za-z][\w.-]*)([ \t]+)(\S+)\s*$/.exec(value);
  return m ? `${m[1]}${m[2]}${maskUnlessHarmless(m[3])}` : maskUnlessHarmless(value);
}

/** Headers with credentials masked: Authorization keeps its scheme, cookies keep their names. */
export function redactHeaders(headers: Record<string, string>, options: RedactOptions = {}): Record<string, string> {
  const masked = (name: string, value: string) => {
    const lower = name.toLowerCase();
    if (HEADER_WITH_SCHEME.has(lower)) return maskCredential(value);
    if (COOKIE_HEADERS.has(lower)) return lower === 'set-cookie' ? redactSetCookies(value) : redactCookie(value, false);
    return isSecretName(name) || wholeValue(value, options.values)
      ? maskUnlessHarmless(value)
      : redactText(value, options);
  };
  // fromEntries: a header the target named __proto__ stays a header of the report, never a prototype.
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, masked(name, value)]));
}

/**
 * A request or response body with secrets masked. JSON bodies are walked (fields with secret
 * names masked, other strings scanned as text); form bodies and anything else are scanned as text,
 * which keeps their bytes except for the masked values.
 */
// Stryker disable next-line StringLiteral: any default without "json" in it reads the same
export function redactBody(body: string, contentType = '', options: RedactOptions = {}): string {
  // Too deep to walk: scanned as text, which masks the same secret-named pairs without recursion.
  if (looksLikeJson(body, contentType) && !tooDeep(body, contentType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      // not JSON after all: parsed stays undefined, and the body is scanned as text below
    }
    // Each string leaf is searched for the secrets in one pass (indexed once here, not per leaf).
    const secrets = options.secrets && indexOf(options.secrets);
    const values = options.values && indexOf(options.values);
    const redacted = redactJson(parsed, { ...options, secrets, values });
    if (JSON.stringify(redacted) === JSON.stringify(parsed)) return redactText(body, options);
    return body.includes('\n') ? JSON.stringify(redacted, null, 2) : JSON.stringify(redacted);
  }
  return redactText(body, options);
}

/** Walks parsed JSON; everything under a secret-named field is masked, however deeply nested. */
// Stryker disable next-line StringLiteral: the top level has no name; any name but a secret one reads the same
function redactJson(value: unknown, options: RedactOptions, key = '', underSecret = false): unknown {
  const secret = underSecret || isSecretName(key);
  if (typeof value === 'string') {
    if (!secret) return wholeValue(value, options.values) ? mask(value) : redactText(value, options);
    return HEADER_WITH_SCHEME.has(key.toLowerCase()) ? maskCredential(value) : maskUnlessHarmless(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactJson(item, options, key, secret));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, options, k, secret)]));
  }
  return value;
}

function headerValue(headers: Record<string, string>, name: string): string {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return entry?.[1] ?? '';
}

/** One HTTP exchange with its URL, headers and bodies redacted. */
export function redactExchange(exchange: Exchange, given: RedactOptions = {}): Exchange {
  const { request, response } = exchange;
  const options = { ...given, exchange: true };
  const out: Exchange = {
    request: {
      method: redactText(request.method, options),
      url: redactUrl(request.url, options),
      headers: redactHeaders(request.headers, options),
      ...(request.body !== undefined
        ? { body: redactBody(request.body, headerValue(request.headers, 'content-type'), options) }
        : {}),
    },
  };
  if (response) {
    out.response = {
      status: response.status,
      headers: redactHeaders(response.headers, options),
      ...(response.body !== undefined
        ? { body: redactBody(response.body, headerValue(response.headers, 'content-type'), options) }
        : {}),
    };
  }
  return out;
}

/**
 * The report with every secret masked; the input is not modified. Every reporter renders only this.
 * Every string in it is scanned (ids, titles, reasons, soft failures, the reproduce line, and any
 * field added later), so no field can be forgotten; exchanges are redacted as exchanges (headers by
 * name, bodies by content type). Prose is kept word for word by redactText.
 */
export function redact(report: Report, options: RedactOptions = {}): Report {
  return redactTree(report, options) as Report;
}

/** What stands for a part of a report nested too deep to walk (only a report read back from a file can be). */
export const TOO_DEEP = `… (nested deeper than ${MAX_JSON_DEPTH} levels, left out)`;

function redactTree(value: unknown, options: RedactOptions, key?: string, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, options);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value))
    return key === 'exchange'
      ? value.map((exchange: Exchange) => redactExchange(exchange, options))
      : value.map((item) => redactTree(item, options, undefined, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactTree(v, options, k, depth + 1)]));
}
