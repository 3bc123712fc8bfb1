/**
 * Assertions and small flows the OAuth suites (grants, device, tokens, oidc, cors) share.
 * Messages name what was wrong and never carry a token, a code or a secret: details hold
 * statuses, error codes and field names only.
 */
import { ERROR_DESCRIPTION_CHARACTERS, machine, operations, type RuleId } from '../../spec/index.js';
import type { AppRole, CheckContext, Http, HttpRequest, HttpResponse, TokenResponse } from '../types.js';
import { handsOverTo } from '../drivers/hand-over.js';
import { jsonObject, jsonValue } from './json.js';
import { scopesOf } from './scope-list.js';
import { broke } from './rules.js';
import { hasRefreshToken, refreshTokenMissingSaid, sayRefreshTokenMissing } from './refresh-premise.js';
import { FoundAbsent, noAnswer } from '../runner/errors.js';
import { CURRENT_USER_PATH, restKnownToRefuseTokens, restRefusesTokens } from './rest-tokens.js';

export { broke, jsonObject, CURRENT_USER_PATH };

export const TOKEN_PATH = '/oauth/token';
export const REVOKE_PATH = '/oauth/revoke';
export const TOKEN_INFO_PATH = '/oauth/token/info';
export const USERINFO_PATH = '/oauth/userinfo';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const AUTHORIZE_DEVICE_PATH = '/oauth/authorize_device';
export const KEYS_PATH = '/oauth/discovery/keys';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The endpoint members discovery must hold (OIDC-DISCOVERY), and the source's path of each (L104-L113). */
export const DISCOVERY_ENDPOINTS: Readonly<Record<string, string>> = {
  authorization_endpoint: AUTHORIZE_PATH,
  token_endpoint: TOKEN_PATH,
  userinfo_endpoint: USERINFO_PATH,
  revocation_endpoint: REVOKE_PATH,
  jwks_uri: KEYS_PATH,
};

/** RFC 6749 §5.2: the characters error_description may hold. */
const DESCRIPTION_CHARACTERS = new RegExp(`^[${ERROR_DESCRIPTION_CHARACTERS}]*$`);

const withoutTrailingSlash = (url: string) => url.replace(/(?<!\/)\/+$/, '');

/**
 * An issuer (or base URL) as URLs compare when the config names one (RFC 3986 §6.2.2-6.2.3: the
 * scheme and host in any case, the default port written or not), without a trailing slash: how a
 * person writes the provider's address in the config is no claim about the provider.
 */
const comparable = (url: string) => withoutTrailingSlash(URL.canParse(url) ? new URL(url).href : url);

/**
 * The path under the base URL where discovery is read: the configured issuer's (OIDC Discovery §4:
 * {issuer}/.well-known/openid-configuration, so an issuer with a path, Keycloak's /realms/NAME,
 * puts it under that path) when the issuer lies at or under the base URL; else the base URL's own
 * (an issuer on another origin, or above the base URL as in a config that kept the host's root).
 */
export function discoveryPath(baseUrl: string, issuer: string | undefined): string {
  const own = issuer === undefined ? undefined : comparable(issuer);
  const base = comparable(baseUrl);
  return own?.startsWith(`${base}/`) ? `${own.slice(base.length)}${DISCOVERY_PATH}` : DISCOVERY_PATH;
}

/**
 * Does a URL discovery names put the endpoint at the source's path (`/oauth/token`): under one of
 * `roots` (the base URL; for OIDC-DISCOVERY the configured issuer too) on its origin, at that path's
 * end on another origin (a trailing slash aside)? One answer for where the harness sends the
 * endpoint's requests (runner/endpoints.ts) and for what OIDC-DISCOVERY holds discovery to
 * (L104-L113 name the paths).
 */
export function atSourcePath(url: URL, roots: readonly string[], path: string): boolean {
  const trimmed = (p: string) => p.replace(/(?<!^)\/$/, '');
  const own = roots.filter((root) => URL.canParse(root)).map((root) => new URL(root));
  if (!own.some((root) => root.origin === url.origin)) return trimmed(url.pathname).endsWith(path);
  return own.some(
    (root) =>
      root.origin === url.origin &&
      trimmed(url.pathname) === `${root.pathname === '/' ? '' : trimmed(root.pathname)}${path}`,
  );
}

/** GET the discovery document (discoveryPath). */
export const getDiscovery = (http: Pick<Http, 'baseUrl' | 'get'>, issuer: string | undefined) =>
  http.get(discoveryPath(http.baseUrl, issuer));

/** The discovery document as a JSON object, or undefined (not a 200, not JSON, no answer). */
export const readDiscovery = (http: Pick<Http, 'baseUrl' | 'get'>, issuer: string | undefined) =>
  getDiscovery(http, issuer).then(
    (res) => (res.status === 200 ? jsonObject(res) : undefined),
    () => undefined,
  );

/** RFC 8414 §3: the authorization server metadata of an OAuth server that publishes no OIDC discovery. */
export const METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * Where RFC 8414 §3.1 puts the metadata: the well-known segment between the host and the issuer's
 * path (the configured issuer's, on the base URL's origin; else the base URL's own path).
 */
export function metadataUrl(baseUrl: string, issuer: string | undefined): string {
  const base = new URL(baseUrl);
  const own =
    issuer !== undefined && URL.canParse(issuer) && new URL(issuer).origin === base.origin ? new URL(issuer) : base;
  return `${base.origin}${METADATA_PATH}${withoutTrailingSlash(own.pathname)}`;
}

/**
 * The document that says where the endpoints are: discovery (readDiscovery), else RFC 8414's
 * metadata, which names them with the same members. Routing and the start-up's probes read it;
 * OIDC-DISCOVERY still judges discovery alone (L104 names openid-configuration).
 */
export const readMetadata = async (http: Pick<Http, 'baseUrl' | 'get' | 'follow'>, issuer: string | undefined) =>
  (await readDiscovery(http, issuer)) ??
  http.follow(metadataUrl(http.baseUrl, issuer)).then(
    (res) => (res.status === 200 ? jsonObject(res) : undefined),
    () => undefined,
  );

/**
 * The config's issuer and the provider's name one issuer, whether or not either ends with a slash,
 * whatever the case of its scheme and host, its default port written or not (comparable).
 */
export const sameIssuer = (a: string, b: string) => comparable(a) === comparable(b);

/**
 * Does an issuer the provider sends (an authorization response's iss) name the configured one?
 * Only the config's spelling is forgiven: the provider's iss is compared as it is (RFC 9207 §2.4:
 * simple string comparison), save a trailing slash, with the config as written or as URLs compare.
 */
export const namesConfiguredIssuer = (iss: string, configured: string) =>
  [withoutTrailingSlash(configured), comparable(configured)].includes(withoutTrailingSlash(iss));

/**
 * The issuer the id_token must name: the config's, written as discovery writes it (Auth0's ends
 * with a slash, and iss must equal the provider's issuer exactly, OIDC Core §3.1.3.7), else
 * discovery's, else the base URL.
 */
export async function expectedIssuer(t: CheckContext): Promise<string> {
  const discovery = jsonObject(await getDiscovery(t.http, t.config.issuer));
  const published = typeof discovery?.issuer === 'string' ? discovery.issuer : undefined;
  if (t.config.issuer)
    return published !== undefined && sameIssuer(published, t.config.issuer)
      ? published
      : withoutTrailingSlash(t.config.issuer);
  return published ?? withoutTrailingSlash(t.http.baseUrl);
}

/** Discovery's issuer, asked once a run (keyed by its Http) for the iss of authorization responses. */
const runIssuers = new WeakMap<object, Promise<string>>();
function issuerOfRun(t: CheckContext): Promise<string> {
  let issuer = runIssuers.get(t.http);
  if (!issuer) {
    runIssuers.set(t.http, (issuer = expectedIssuer(t)));
    // A discovery that did not answer is asked again next time.
    issuer.catch(() => runIssuers.delete(t.http));
  }
  return issuer;
}

/**
 * RFC 9207: an iss the authorization response carries names the provider's issuer
 * (GRANT-AUTHORIZE-ISS, a should: the source shows no iss); without one nothing is judged, and
 * every other reader of the redirect reads past it (RFC 6749 §4.1.2).
 */
export async function expectIssuerParam(t: CheckContext, redirect: URL | undefined): Promise<void> {
  const iss = redirect?.searchParams.get('iss');
  if (iss === null || iss === undefined) return;
  // The configured issuer needs no request (a discovery GET inside every authorization would be
  // traffic of the check's own, which diff then compares); without one, discovery's.
  const configured = t.config.issuer;
  const issuer = configured ?? (await issuerOfRun(t));
  const same = configured ? namesConfiguredIssuer(iss, configured) : iss === issuer;
  t.soft(same, `authorize: the redirect's iss must be the issuer identifier ${issuer} (RFC 9207 §2)`, {
    rules: ['GRANT-AUTHORIZE-ISS'],
    iss,
    issuer,
  });
}

/** The media type OAuth clients ask JSON endpoints for (oauth4webapi and openid-client send it on every request). */
export const JSON_ACCEPT = 'application/json';

let jsonEndpoints: Set<string> | undefined;

/**
 * Does `METHOD /path` (a query ignored) reach an OAuth or OpenID Connect endpoint whose success
 * answer is JSON (spec/openapi.yaml: token, device authorization, revocation, token info,
 * userinfo, discovery, keys)? The harness asks those with Accept: JSON_ACCEPT, as clients do: some
 * providers (GitHub's token and device endpoints) answer form-encoded to a request without it.
 */
export function answersJson(method: string, path: string): boolean {
  jsonEndpoints ??= new Set(
    operations()
      .filter((o) => o.tags.some((tag) => tag === 'oauth' || tag === 'oidc'))
      .filter((o) =>
        Object.entries(o.raw.responses ?? {}).some(
          ([status, answer]) => status.startsWith('2') && 'content' in answer && !!answer.content?.[JSON_ACCEPT],
        ),
      )
      .map((o) => `${o.method.toUpperCase()} ${o.path}`),
  );
  return jsonEndpoints.has(`${method.toUpperCase()} ${path.split('?')[0]}`);
}

/** RFC 6749 §5.2 token error codes (rule ERR-TOKEN-STANDARD-CODES names the same list). */
export const STANDARD_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
];

/**
 * An error code as a start-up line may quote it (`400 invalid_client`): a short token of word
 * characters, dots and dashes, else undefined (a target's free text, or a secret it echoed, is
 * never quoted).
 */
export const quotableError = (error: unknown): string | undefined =>
  typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? error : undefined;

/** The media type of an answer's Content-Type, lower case, without parameters ('' without one). */
export const mediaTypeOf = (res: { headers: Headers }): string =>
  (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();

/**
 * A success that is a web page, not JSON: the HTML a web app's catch-all route serves for any
 * unknown GET (`<!doctype html><div id=root>`). At an endpoint that answers JSON only, no answer
 * of that endpoint (review 28).
 */
export function webPage(res: Pick<HttpResponse, 'status' | 'headers' | 'text'>): boolean {
  if (res.status < 200 || res.status >= 300 || jsonValue(res) !== undefined) return false;
  const type = mediaTypeOf(res);
  return type === 'text/html' || type === 'application/xhtml+xml' || /^\s*</.test(res.text);
}

/**
 * The response says it is JSON: application/json, or a JSON-based media type (`+json`, as RFC
 * 7517's application/jwk-set+json). Exactly `application/json` is judged by expectExactJsonType.
 * Breaks ENC-RESPONSE-JSON and `rules`.
 */
export function expectJsonType(t: CheckContext, res: HttpResponse, what: string, rules: readonly RuleId[] = []): void {
  const type = res.headers.get('content-type');
  const media = mediaTypeOf(res);
  t.soft(
    media === 'application/json' || /^application\/[\w.-]+\+json$/.test(media),
    `${what}: Content-Type must be JSON (application/json)`,
    broke(['ENC-RESPONSE-JSON', ...rules], { status: res.status, contentType: type }),
  );
}

/**
 * An OAuth endpoint asked once as a client that sends no Accept at all, which accepts any media
 * type (RFC 9110 §12.5.1). The source (L102: "Responses are JSON unless stated"), RFC 6749 §5.1
 * and RFC 8628 §3.2 make the answer JSON whatever the request's Accept: a provider that answers
 * JSON only when asked (GitHub's token and device endpoints answer form-encoded by default) breaks
 * `rules`, a must, here and once; the harness's other requests ask for JSON (runner/http.ts), as
 * clients do, so everything else is still judged. `asked`: the same request's answer with Accept.
 */
export function expectJsonUnasked(
  t: CheckContext,
  res: HttpResponse,
  asked: HttpResponse,
  what: string,
  rules: readonly RuleId[],
): void {
  const onlyAsked = jsonObject(asked) ? `; JSON came only when asked for (Accept: ${JSON_ACCEPT})` : '';
  expectJsonBody(t, res, `${what} without an Accept header`, rules, onlyAsked);
}

/**
 * A successful OAuth answer: 200 with a JSON object, else `rules` break (`hint` ends the message).
 * The body only: a JSON body under another label is ENC-RESPONSE-JSON's alone (expectJsonType).
 */
export function expectJsonBody(
  t: CheckContext,
  res: HttpResponse,
  what: string,
  rules: readonly RuleId[],
  hint = '',
): void {
  const type = res.headers.get('content-type');
  t.soft(
    res.status === 200 && jsonObject(res) !== undefined,
    `${what} must answer 200 with a JSON object: it answered ${res.status} ${(type ?? 'without Content-Type').split(';')[0].slice(0, 60)}${hint}`,
    broke(rules, { status: res.status, contentType: type }),
  );
}

/** Exactly `application/json`, no charset parameter: the real service's wire format (ENC-JSON-CONTENT-TYPE, a should). */
export function expectExactJsonType(t: CheckContext, res: HttpResponse, what: string): void {
  const type = res.headers.get('content-type');
  t.expect(
    type === 'application/json',
    `${what}: Content-Type must be exactly application/json, without parameters`,
    broke(['ENC-JSON-CONTENT-TYPE'], { status: res.status, contentType: type }),
  );
}

/**
 * A field of a token endpoint's answer: its JSON object's, else its body read as form-encoded
 * (GitHub's default token answer), as a client reading it would.
 */
function answerField(res: HttpResponse, name: string): unknown {
  const body = jsonObject(res);
  return body ? body[name] : (new URLSearchParams(res.text).get(name) ?? undefined);
}

/** An error answer of the token endpoint: a 4xx/5xx status, or an OAuth `error` (even under 200). */
export function isErrorAnswer(res: HttpResponse): boolean {
  return res.status >= 400 || typeof answerField(res, 'error') === 'string';
}

/**
 * Token endpoint answers must not be cached: one that carries tokens by RFC 6749 §5.1's MUST
 * (TOK-NO-STORE), a refusal as the real service does (TOK-ERROR-NO-STORE). Which, the answer
 * says, not what was asked: a code answered with tokens twice is a token response all the same.
 * Tokens: an answer naming an access_token, in JSON or form-encoded, or any 2xx without an
 * `error` (its body unread by the harness may still carry them: the must, never the should).
 */
export function expectNoStore(t: CheckContext, res: HttpResponse, what: string): void {
  const cacheControl = res.headers.get('cache-control') ?? '';
  const error = answerField(res, 'error');
  const tokens =
    typeof answerField(res, 'access_token') === 'string' ||
    (res.status >= 200 && res.status < 300 && (error === undefined || error === null));
  // Soft: the token response's failure must not hide the refusal's, another sentence.
  t.soft(
    cacheControl
      .toLowerCase()
      .split(',')
      .some((d) => d.trim() === 'no-store'),
    `${what}: Cache-Control must contain no-store`,
    broke([tokens ? 'TOK-NO-STORE' : 'TOK-ERROR-NO-STORE'], { status: res.status, cacheControl: cacheControl || null }),
  );
}

/** A 200 token response as an object; fails with the error code otherwise (TOK-RESPONSE-JSON and `rules`, those of the request that should have worked). */
export function expectTokenOk(
  t: CheckContext,
  res: HttpResponse,
  what: string,
  rules: readonly RuleId[] = [],
): TokenResponse {
  const body = jsonObject(res);
  // A refusal (an OAuth error body, even under 200) breaks the rules of the request that should
  // have worked; a 200 that is neither token response nor refusal, TOK-RESPONSE-JSON too.
  const refused = res.status !== 200 || typeof body?.error === 'string';
  t.expect(
    res.status === 200 && body && typeof body.access_token === 'string',
    `${what}: expected 200 with a token response`,
    broke(refused ? rules : ['TOK-RESPONSE-JSON', ...rules], {
      status: res.status,
      error: body?.error ?? null,
      errorDescription: body?.error_description ?? null,
    }),
  );
  return body as unknown as TokenResponse;
}

export interface ExpectedError {
  /** Accepted statuses (one or several). */
  status: number | number[];
  /** Accepted `error` codes. */
  error: string | string[];
  /** Rules a wrong outcome breaks: a token instead of a refusal, a refusal that is no 4xx, another standard error code. */
  rules?: RuleId[];
  /** Rules a malformed refusal breaks besides ERR-OAUTH-BODY (and TOK-ERROR-BODY at the token endpoint): empty, JSON but not an object, error or error_description not a string. A body that is not JSON is ENC-RESPONSE-JSON's alone. */
  bodyRules?: RuleId[];
  /** Rules another 4xx breaks; default ERR-TOKEN-STATUS at the token endpoint, else `rules`. */
  statusRules?: RuleId[];
  /** Rules a 5xx breaks besides `rules` (ERR-NO-SERVER-ERROR). */
  serverErrorRules?: RuleId[];
  /** Rules another standard error code breaks; default `rules`. */
  errorRules?: RuleId[];
  /** Rules an error code outside the standard ones breaks, instead of `errorRules`; default ERR-TOKEN-STANDARD-CODES at the token endpoint, or where a device-flow code of L258-261 is due, its row's rules. */
  codeRules?: RuleId[];
}

/** The codes RFC 8628 §3.5 adds for the device grant: those of the device state table. */
export const deviceErrors = () =>
  machine('device-authorization').rows.flatMap((r) => (r.result.error ? [r.result.error] : []));

/**
 * Where the refusal due is one of the device flow's own failures (L258-261: codes of the device
 * table that are no standard code), the rules of the rows naming them; else none. Those failures
 * are not ERR-TOKEN-STANDARD-CODES's ("other token endpoint failures", L262): a code of one's own
 * in their place (Entra ID's authorization_declined for access_denied) breaks the row's rule.
 */
function deviceCodeRules(codes: readonly string[]): RuleId[] {
  if (!codes.length || codes.some((code) => STANDARD_ERRORS.includes(code))) return [];
  const rows = machine('device-authorization').rows.filter((r) => r.result.error && codes.includes(r.result.error));
  return [...new Set(rows.flatMap((r) => r.rules))];
}

/**
 * An OAuth error body (`error`, `error_description` strings) with one of the expected statuses and
 * codes. A must rule is exactly as strict as its sentence: a refusal with the right standard code
 * satisfies it; how the refusal is delivered (which 4xx, the body's shape, a code of one's own)
 * breaks the rule that says so (ERR-TOKEN-STATUS, ERR-OAUTH-BODY, ERR-TOKEN-STANDARD-CODES), once.
 * A body that is not JSON (an HTML error page) is ENC-RESPONSE-JSON's alone: no member is judged.
 */
export function expectOAuthError(
  t: CheckContext,
  res: HttpResponse,
  expected: ExpectedError,
  what: string,
): Record<string, unknown> {
  const errors = ([] as string[]).concat(expected.error);
  const body = jsonObject(res);
  // The status is judged against the error the answer carries: an invalid_client where another
  // code was due is that code's rule's to blame, and its 401 (or 400) is the status RFC 6749 §5.2
  // gives it (ERR-TOKEN-STATUS), not a second deviation.
  const statuses =
    body?.error === 'invalid_client' && !errors.includes('invalid_client')
      ? [401, 400]
      : ([] as number[]).concat(expected.status);
  const details = { status: res.status, error: body?.error ?? null, expectedStatus: statuses, expectedError: errors };
  const outcome = expected.rules ?? [];
  // The endpoint the request was for, even at a provider's own path (Keycloak's, Okta's: urlOf).
  const path = res.endpoint ?? new URL(res.url, 'http://localhost').pathname;
  const tokenEndpoint = path.endsWith(TOKEN_PATH);
  // The device authorization endpoint answers errors as the token endpoint does (RFC 8628 §3.2).
  const tokenLike = tokenEndpoint || path.endsWith(AUTHORIZE_DEVICE_PATH);
  const malformed: RuleId[] = [
    'ERR-OAUTH-BODY',
    ...(tokenEndpoint ? ['TOK-ERROR-BODY' as const] : []),
    ...(expected.bodyRules ?? []),
  ];
  // A token instead of a refusal stops here; the rest are independent details of the refusal.
  t.expect(
    !(body && typeof body.access_token === 'string'),
    `${what}: expected a refusal, got a token response`,
    broke(outcome, details),
  );
  // Another client error is still the refusal asked for, and so is a 2xx carrying an OAuth error
  // body (as some token endpoints answer): the status alone is wrong. A 3xx or 5xx is none.
  const clientError =
    (res.status >= 400 && res.status < 500) ||
    (res.status >= 200 && res.status < 300 && typeof body?.error === 'string');
  const statusRules = expected.statusRules ?? (tokenLike ? ['ERR-TOKEN-STATUS' as const] : outcome);
  t.soft(
    statuses.includes(res.status),
    `${what}: expected status ${statuses.join(' or ')}, got ${res.status}`,
    broke(clientError ? statusRules : [...outcome, ...statusRules], details),
  );
  // Its own assertion, so a refusal seen below 500 proves it too.
  if (expected.serverErrorRules?.length)
    t.soft(
      res.status < 500,
      `${what}: answered ${res.status}, a server error`,
      broke(expected.serverErrorRules, details),
    );
  // A 2xx without `error` refused nothing (the status says so, on the rules that asked for the
  // refusal): there is no refusal whose body or label to judge.
  if (res.status >= 200 && res.status < 300 && typeof body?.error !== 'string') return body ?? {};
  // Content that is no JSON at all (a front proxy's or a framework's HTML page, plain text) breaks
  // ENC-RESPONSE-JSON's sentence (L102: responses are JSON), once, whatever its label says. The
  // error body's members cannot be read from it, so the error-body rules are not judged on this
  // answer (one cause, one blame): they stay untested here, never failed.
  if (res.text.length > 0 && jsonValue(res) === undefined) {
    const type = res.headers.get('content-type');
    t.soft(
      false,
      `${what}: the refusal must be JSON: its body is not (${(type ?? 'no Content-Type').split(';')[0].slice(0, 60)}), so no OAuth error body can be read from it`,
      broke(['ENC-RESPONSE-JSON'], { status: res.status, contentType: type }),
    );
    return {};
  }
  const isBody = t.soft(
    body !== undefined,
    `${what}: the refusal must be an OAuth error body (JSON object)`,
    broke(malformed, { ...details, contentType: res.headers.get('content-type') }),
  );
  if (isBody && body) {
    const hasError = t.soft(
      typeof body.error === 'string',
      `${what}: the OAuth error body must carry an error string`,
      broke(malformed, details),
    );
    if (hasError) {
      const code = body.error as string;
      const deviceRules = tokenEndpoint ? deviceCodeRules(errors) : [];
      const codeRules =
        expected.codeRules ??
        (deviceRules.length ? deviceRules : tokenEndpoint ? ['ERR-TOKEN-STANDARD-CODES' as const] : []);
      // A code of its own breaks the rule on codes; another standard code, the rule that named the code.
      // RFC 8628 §3.5's codes are standard for a device grant poll only: Auth0's 403 access_denied
      // refusing another grant is a code of its own (L262), whatever the device flow calls it.
      const standard =
        res.grant === undefined || res.grant === DEVICE_GRANT
          ? [...STANDARD_ERRORS, ...deviceErrors()]
          : STANDARD_ERRORS;
      const ownCode = !errors.includes(code) && !standard.includes(code);
      if (codeRules.length)
        t.soft(
          !ownCode,
          `${what}: error ${JSON.stringify(code)} is none of the standard OAuth error codes (expected ${errors.join(' or ')})`,
          broke(codeRules, details),
        );
      if (!ownCode || !codeRules.length)
        t.soft(
          errors.includes(code),
          `${what}: expected error ${errors.join(' or ')}`,
          broke(expected.errorRules ?? outcome, details),
        );
    }
    const described = t.soft(
      typeof body.error_description === 'string',
      `${what}: the OAuth error body must carry an error_description string`,
      broke(malformed, details),
    );
    // Its own sentence of RFC 6749 §5.2 (a MUST NOT), apart from the body's shape.
    if (described)
      t.soft(
        DESCRIPTION_CHARACTERS.test(body.error_description as string),
        `${what}: the error_description holds characters RFC 6749 §5.2 does not allow there (a control character such as CR or LF, a double quote, a backslash, or non-ASCII)`,
        broke(['ERR-DESCRIPTION-CHARSET'], details),
      );
  }
  // The label alone is the encoding rule's: a JSON error body sent as text/plain is still one. No
  // content has no media type to judge: an empty body broke the error body's rules above, and its
  // missing label is the same deviation (one cause, one blame; as an empty revocation, revoke.ts).
  // Content that is not JSON was judged above, once.
  if (res.text.length > 0) expectJsonType(t, res, what);
  return body ?? {};
}

export function tokenInfo(t: CheckContext, token: string, via: 'header' | 'query' = 'header'): Promise<HttpResponse> {
  return via === 'header'
    ? t.http.get(TOKEN_INFO_PATH, { bearer: token })
    : t.http.get(TOKEN_INFO_PATH, { query: { access_token: token } });
}

/**
 * RFC 7662 §2.1: ask the advertised introspection endpoint, the client authenticating as the
 * confidential application (else the public one). Its path comes from discovery, not the spec, so
 * it asks for JSON (RFC 7662 §2.2) here rather than through answersJson.
 */
function introspect(t: CheckContext, token: string): Promise<HttpResponse> {
  const role = t.config.applications?.confidential ? 'confidential' : 'public';
  // Placed as the start-up found the provider takes them (HTTP Basic where the body is refused).
  const { fields, clientBasic } = t.config.applications?.[role] ? t.oauth.clientAuth(role) : { fields: {} };
  // follow(): a path is taken under the base URL, a URL on a trusted origin as it is.
  return t.http.follow(t.caps.introspectionPath ?? '', {
    method: 'POST',
    form: { token, token_type_hint: 'access_token', ...fields },
    clientBasic,
    headers: { accept: JSON_ACCEPT },
  });
}

/** What one oracle said of a token: it works, it does not, or nothing (byStatus; a 403 of userinfo for a token without openid). */
type Said = 'works' | 'refused' | 'silent';

interface Oracle {
  /** What the reader is told was asked: `GET /oauth/token/info`. */
  name: string;
  res: HttpResponse;
  said: Said;
  /** A refusal of a dead token should have this status (RFC 6750 §3.1), judged on this rule; none for introspection. */
  deadStatus?: { status: number; rule: RuleId };
  /** The rule a live token refused here breaks, when the check names none (the oracle's own). */
  aliveRule?: RuleId;
}

/**
 * Acceptance is a 200 of the endpoint's JSON (or, from userinfo, a signed JWT: OIDC Core §5.3.2),
 * refusal a 401 or 403 (RFC 6750 §3.1). Any other answer (a redirect, a server error, a 400, a web
 * page) is neither and says nothing of the token: another oracle judges it, or none does (review 28).
 */
const byStatus = (res: HttpResponse): Said =>
  res.status === 200 && (jsonObject(res) !== undefined || mediaTypeOf(res) === 'application/jwt')
    ? 'works'
    : res.status === 401 || res.status === 403
      ? 'refused'
      : 'silent';

/**
 * A question to an oracle whose answer (a redirect) settled its endpoint absent, where the start-up
 * was unsure of it (runner/session.ts, settleUnsure): no answer, so the others judge the token; the
 * check that asked goes on (before, it was skipped with the checks that need the endpoint).
 */
const unlessFoundAbsent =
  (path: string) =>
  (error: unknown): undefined => {
    if (error instanceof FoundAbsent && error.path === path) return undefined;
    throw error;
  };

/** The answer says a token works: a 200 of the endpoint's JSON (or, from userinfo, a signed JWT). */
export const tokenAccepted = (res: HttpResponse): boolean => byStatus(res) === 'works';

/**
 * Ask every oracle the target serves (its endpoint families were established once per run, see
 * caps) whether an access token works: token info, the REST API's current user, userinfo (a 403
 * there is a token without openid: it says nothing) and the RFC 7662 introspection endpoint when
 * discovery advertises one (`active`, the client authenticating as the confidential application).
 * With none of them, a check that needs the verdict (`required`) is errored, never failed.
 */
async function oracles(t: CheckContext, token: string, required: boolean, skip: Skipped = {}): Promise<Oracle[]> {
  const asked: Oracle[] = [];
  const info =
    t.caps.tokenInfo && !skip.tokenInfo
      ? await tokenInfo(t, token).catch(unlessFoundAbsent(TOKEN_INFO_PATH))
      : undefined;
  if (info)
    asked.push({
      name: `GET ${TOKEN_INFO_PATH}`,
      res: info,
      said: byStatus(info),
      deadStatus: { status: 401, rule: 'INFO-INVALID-TOKEN' },
      aliveRule: 'INFO-TOKEN-PRESENTATION',
    });
  // A REST API closed to OAuth tokens says nothing of this one (reported once: rest-tokens.ts).
  if (!skip.restApi && t.caps.restApi && !restKnownToRefuseTokens(t)) {
    const res = await t.http.get(CURRENT_USER_PATH, { bearer: token });
    // Asked only when this answer would blame the token (expected alive, refused).
    const closed = !required && res.status !== 200 && (await restRefusesTokens(t).catch(noAnswer)) !== undefined;
    if (!closed)
      asked.push({
        name: `GET ${CURRENT_USER_PATH}`,
        res,
        said: byStatus(res),
        deadStatus: { status: 401, rule: 'AUTH-INVALID-TOKEN-401' },
        aliveRule: 'TOK-VERIFY-USER',
      });
  }
  const userinfo = t.caps.userinfo
    ? await t.http.get(USERINFO_PATH, { bearer: token }).catch(unlessFoundAbsent(USERINFO_PATH))
    : undefined;
  if (userinfo)
    asked.push({
      name: `GET ${USERINFO_PATH}`,
      res: userinfo,
      said: userinfo.status === 403 ? 'silent' : byStatus(userinfo),
      deadStatus: { status: 401, rule: 'OIDC-USERINFO-INVALID-TOKEN' },
      aliveRule: 'OIDC-USERINFO',
    });
  if (t.caps.introspection) {
    const res = await introspect(t, token);
    const active = jsonObject(res)?.active;
    asked.push({
      name: `POST ${t.caps.introspectionPath}`,
      res,
      said: res.status === 200 && typeof active === 'boolean' ? (active ? 'works' : 'refused') : 'silent',
    });
  }
  const heard = asked.filter((o) => o.said !== 'silent');
  if (!heard.length && required)
    t.harness(
      `no oracle to tell whether an access token works: the target serves none of ${TOKEN_INFO_PATH}, ${CURRENT_USER_PATH}, ${USERINFO_PATH} (for an openid token) and an advertised introspection endpoint${asked.length ? ` that accepts (200 of its JSON) or refuses (401, 403) it (asked: ${asked.map((o) => `${o.name} ${o.res.status}`).join(', ')})` : ''}${t.caps.introspectionAway ? `; ${t.caps.introspectionAway}` : ''}`,
    );
  return heard;
}

/** Oracles left unasked: those whose answer to the token is what the check judges. */
interface Skipped {
  restApi?: boolean;
  tokenInfo?: boolean;
}

/** The oracle that still accepts an access token, if any, `skip` left unasked: whether a revocation took. */
export async function acceptingOracle(t: CheckContext, token: string, skip: Skipped = {}): Promise<string | undefined> {
  return (await oracles(t, token, false, skip)).find((o) => o.said === 'works')?.name;
}

/**
 * The access token works on every oracle the target serves; given `rules` (why it should still
 * work), a refusal breaks those, else the oracle's own rule (INFO-TOKEN-PRESENTATION,
 * TOK-VERIFY-USER, OIDC-USERINFO). A token seen to work proves the oracle's own rule either way.
 * An introspection endpoint has no rule of the source: calling a fresh token inactive without
 * `rules` is the harness's trouble, not a verdict. Where no oracle tells, nothing is asserted:
 * the rules stay unproved, and the check's other assertions stand.
 */
export async function expectAccessAlive(
  t: CheckContext,
  token: string,
  what: string,
  rules: readonly RuleId[] = [],
): Promise<void> {
  for (const oracle of await oracles(t, token, false)) {
    const blame = rules.length ? [...rules] : oracle.aliveRule ? [oracle.aliveRule] : undefined;
    if (!blame) {
      if (oracle.said !== 'works') t.harness(`${what}: ${oracle.name} calls the access token inactive`);
      continue;
    }
    const works = oracle.said === 'works';
    t.soft(
      works,
      `${what}: the access token must be accepted by ${oracle.name}`,
      broke(works && oracle.aliveRule ? [...blame, oracle.aliveRule] : blame, { status: oracle.res.status }),
    );
  }
}

/**
 * The access token is refused by every oracle the target serves; `rules` name what should have
 * killed it (rotation, revocation, expiry). A refusal with another status than 401 still proves
 * the token dead: the status is its own rule (INFO-INVALID-TOKEN, AUTH-INVALID-TOKEN-401,
 * OIDC-USERINFO-INVALID-TOKEN). `stillAccepted`: an oracle still read it (what killed it did not take).
 */
export async function expectAccessDead(
  t: CheckContext,
  token: string,
  what: string,
  rules: readonly RuleId[] = [],
): Promise<{ stillAccepted: boolean }> {
  const asked = await oracles(t, token, true);
  for (const oracle of asked) {
    const { res, deadStatus } = oracle;
    if (
      t.soft(
        oracle.said === 'refused',
        `${what}: ${oracle.name} still accepts the access token`,
        broke(rules, { status: res.status }),
      ) &&
      deadStatus
    )
      t.soft(
        res.status === deadStatus.status,
        `${what}: ${oracle.name} must refuse the access token with ${deadStatus.status}`,
        broke([deadStatus.rule], { status: res.status }),
      );
  }
  return { stillAccepted: asked.some((o) => o.said === 'works') };
}

/**
 * The scopes an access token holds, as the target shows them: token info (an array), else the
 * introspection endpoint (`scope`, RFC 7662 §2.2), else the token response's `scope`. Sorted;
 * undefined when none of them tells.
 */
export async function shownScopes(t: CheckContext, body: TokenResponse): Promise<string[] | undefined> {
  const info = t.caps.tokenInfo
    ? await tokenInfo(t, body.access_token).catch(unlessFoundAbsent(TOKEN_INFO_PATH))
    : undefined;
  if (info && info.status !== 404) {
    const scope = jsonObject(info)?.scope;
    return Array.isArray(scope) ? [...(scope as string[])].sort() : [];
  }
  const split = (scope: unknown) => (typeof scope === 'string' ? scopesOf(scope).sort() : undefined);
  if (t.caps.introspection && t.caps.introspectionPath) {
    const said = jsonObject(await introspect(t, body.access_token));
    const scope = said?.active === true ? split(said.scope) : undefined;
    if (scope) return scope;
  }
  return split((body as unknown as { scope?: unknown }).scope);
}

/**
 * The scopes an access token holds (shownScopes), or, where the target shows none (token info's
 * own check fails its absence), exactly the scopes requested (RFC 6749 §5.1: `scope` may be left
 * out when it is what was asked). Sorted.
 */
export async function heldScopes(
  t: CheckContext,
  body: TokenResponse,
  requested: readonly string[],
): Promise<string[]> {
  return (await shownScopes(t, body)) ?? [...requested].sort();
}

/** The client parameters a refresh needs besides the refresh token, per application kind (source: POST /oauth/token). */
export function refreshForm(
  t: CheckContext,
  app: AppRole,
  refreshToken: string,
  verifier?: string,
): Record<string, string | undefined> {
  const config = t.oauth.app(app);
  return {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    redirect_uri: config.redirectUri,
    code_verifier: config.clientSecret ? undefined : verifier,
  };
}

/**
 * What a refused refresh of a valid refresh token breaks, in every check that refreshes on the way
 * (L92: a new token response is returned): the parameters the refresh sent (with the secret, or
 * the PKCE verifier) and the rotation.
 */
export function refreshRefusalRules(t: CheckContext, app: AppRole): RuleId[] {
  return [t.oauth.app(app).clientSecret ? 'TOK-REFRESH-PARAMS' : 'PKCE-REFRESH-PARAMS', 'TOK-REFRESH-ROTATION'];
}

/** Refresh (t.oauth tracks what comes back). */
export function refresh(t: CheckContext, app: AppRole, refreshToken: string, verifier?: string): Promise<HttpResponse> {
  return t.oauth.tokenRequest(refreshForm(t, app, refreshToken, verifier), { app });
}

/** Track the tokens of a token response obtained without t.oauth, so the run revokes them. */
export function trackBody(t: CheckContext, res: HttpResponse, app?: AppRole): void {
  const body = jsonObject(res);
  if (typeof body?.access_token === 'string') t.oauth.track(body.access_token, app);
  if (typeof body?.refresh_token === 'string') t.oauth.track(body.refresh_token, app);
}

/**
 * Run /oauth/authorize for `app` with explicit parameters and approve through the driver.
 * Returns the redirect (code or error in its query) or fails when the provider did not redirect
 * (GRANT-REDIRECT-WITH-CODE after approval, GRANT-CONSENT-DENIED after denial, and `rules`).
 */
export async function authorizeRedirect(
  t: CheckContext,
  app: AppRole,
  params: Record<string, string | undefined>,
  decision: 'approve' | 'deny' = 'approve',
  rules: readonly RuleId[] = [],
): Promise<URL> {
  const { redirect, response, decided } = await t.driver.authorize(t.oauth.authorizeUrl(app, params), decision);
  if (!redirect && decided === false)
    t.harness(`the driver found no ${decision} control on the provider's page (status ${response.status})`);
  const redirectRule: RuleId = decision === 'approve' ? 'GRANT-REDIRECT-WITH-CODE' : 'GRANT-CONSENT-DENIED';
  t.expect(
    redirect,
    'authorize: the provider did not redirect back to the redirect_uri',
    broke([redirectRule, ...rules], { status: response.status }),
  );
  // Back to the redirect_uri asked (else the application's), not to an address that only starts like it.
  const asked = params.redirect_uri ?? t.oauth.app(app).redirectUri;
  t.expect(
    handsOverTo(redirect.href, asked),
    'authorize: the provider redirected elsewhere than to the redirect_uri (another path, host or port)',
    broke([redirectRule], { status: response.status }),
  );
  await expectIssuerParam(t, redirect);
  return redirect;
}

/**
 * The code of an approved authorization: the premise of the check. No redirect fails
 * GRANT-REDIRECT-WITH-CODE and `rules`; an error in the redirect refused a request of the
 * documented parameters (GRANT-AUTHORIZE-PARAMS only, with its code); a redirect without either,
 * GRANT-REDIRECT-WITH-CODE only. The rules the check was to prove stay untested.
 */
export async function authorizeCode(
  t: CheckContext,
  app: AppRole,
  params: Record<string, string | undefined>,
  rules: readonly RuleId[] = [],
): Promise<string> {
  const redirect = await authorizeRedirect(t, app, params, 'approve', rules);
  const error = redirect.searchParams.get('error');
  t.expect(
    !error,
    `authorize: the provider refused an approved request of the documented parameters (${error})`,
    broke(['GRANT-AUTHORIZE-PARAMS'], {
      error,
      errorDescription: redirect.searchParams.get('error_description'),
    }),
  );
  const code = redirect.searchParams.get('code');
  t.expect(code, 'authorize: the redirect carries no code', broke(['GRANT-REDIRECT-WITH-CODE']));
  return code;
}

/**
 * The refresh token of a code response: the premise of a check that refreshes or revokes one. A
 * response without it (Ory Hydra, Okta and Entra ID issue one only for offline_access) breaks
 * TOK-REFRESH-TOKEN-PRESENT (L29), once a run (refresh-premise.ts): the first check to meet it
 * fails on that rule, a later one is skipped; either way the check's own rules stay untested.
 */
export function refreshTokenOf(t: CheckContext, tokens: TokenResponse, what: string): string {
  if (hasRefreshToken(tokens)) return tokens.refresh_token as string;
  if (refreshTokenMissingSaid(t))
    t.skip(
      `${what}: the code response carries no refresh_token, as one did earlier in this run, where TOK-REFRESH-TOKEN-PRESENT failed; what needs a refresh token is not tested`,
    );
  sayRefreshTokenMissing(t);
  t.fail(
    `${what}: the code response carries no refresh_token; this check's own rules are untested`,
    broke(['TOK-REFRESH-TOKEN-PRESENT'], { fields: Object.keys(tokens) }),
  );
}

/**
 * Exchange a code: client auth per app (the way the provider takes it unless `auth` says), redirect_uri
 * of the app unless overridden (t.oauth tracks the tokens).
 */
export function exchangeCode(
  t: CheckContext,
  app: AppRole,
  code: string,
  extra: Record<string, string | undefined> = {},
  headers?: HttpRequest['headers'],
  auth?: 'body' | 'basic',
): Promise<HttpResponse> {
  return t.oauth.tokenRequest(
    { grant_type: 'authorization_code', code, redirect_uri: t.oauth.app(app).redirectUri, ...extra },
    { app, headers, auth },
  );
}

/** The rules an application's code flow rests on: the plain flow with a secret, or PKCE without one. */
export function codeFlowRules(t: CheckContext, app: AppRole): RuleId[] {
  return t.oauth.app(app).clientSecret
    ? ['GRANT-CODE-FLOW', 'GRANT-CODE-PARAMS', 'AUTH-CLIENT-BODY']
    : ['GRANT-PKCE-FLOW', 'PKCE-TOKEN-PARAMS', 'PKCE-NO-SECRET', 'PKCE-CHALLENGE-S256'];
}

/**
 * The rules a refused exchange of a fresh code breaks: `flow`'s, unless the provider answered
 * invalid_client to the configured client, which is how the client authenticated (L241: the
 * secret in the form body; a PKCE application sends none), not the flow it never reached; or
 * invalid_request to an exchange of exactly its row's parameters (L140-L141), which wants another
 * (OAuth 2.1's code_verifier of every client): that row's sentence, not the flow's others.
 */
export function exchangeRefusalRules(res: HttpResponse, hasSecret: boolean, flow: readonly RuleId[]): RuleId[] {
  const error = jsonObject(res)?.error;
  if (error === 'invalid_client') return [hasSecret ? 'AUTH-CLIENT-BODY' : 'PKCE-NO-SECRET'];
  if (error === 'invalid_request') return [hasSecret ? 'GRANT-CODE-PARAMS' : 'PKCE-TOKEN-PARAMS'];
  return [...flow];
}

/**
 * A token request of the configured application `app`, with its own credentials, that was to be
 * refused for another reason (a code never issued, a wrong redirect_uri) and was answered
 * invalid_client: the client's authentication failed before the request was looked at. That is
 * the premise of the check (exchangeRefusalRules: how the client authenticates), blamed once; the
 * check's own rules stay untested. Anything else returns for the check to judge.
 */
export function expectClientTaken(t: CheckContext, res: HttpResponse, app: AppRole, what: string): void {
  if (jsonObject(res)?.error !== 'invalid_client') return;
  t.fail(
    `${what}: the provider refused the configured ${app} application's own client credentials (invalid_client); this check's own rules are untested`,
    broke(exchangeRefusalRules(res, !!t.oauth.app(app).clientSecret, []), {
      status: res.status,
      error: 'invalid_client',
    }),
  );
}

/** A code exchange answered with tokens: a refusal breaks `rules` (the app's code flow's), or how the client authenticates. */
export function expectExchangeOk(
  t: CheckContext,
  res: HttpResponse,
  app: AppRole,
  what: string,
  rules: readonly RuleId[] = codeFlowRules(t, app),
): TokenResponse {
  return expectTokenOk(t, res, what, exchangeRefusalRules(res, !!t.oauth.app(app).clientSecret, rules));
}

/**
 * A fresh token pair through the code flow (PKCE for an application without a secret), with the
 * verifier a PKCE refresh needs. A failure breaks the app's code flow rules and `rules`, or how the
 * client authenticates (exchangeRefusalRules).
 */
export async function mintPair(
  t: CheckContext,
  app: AppRole,
  params: Record<string, string | undefined> = {},
  rules: readonly RuleId[] = [],
): Promise<{ tokens: TokenResponse; verifier?: string; res: HttpResponse }> {
  const { res, verifier, flow } = await exchangeFresh(t, app, params, rules);
  return { tokens: expectExchangeOk(t, res, app, `code exchange (${app} application)`, flow), verifier, res };
}

/**
 * A fresh code of `app` exchanged as it is (PKCE for an application without a secret), unjudged:
 * the answer, the verifier, and the rules of the flow (those its refusal breaks). `headers` go
 * over the harness's own (an undefined Accept sends none).
 */
export async function exchangeFresh(
  t: CheckContext,
  app: AppRole,
  params: Record<string, string | undefined> = {},
  rules: readonly RuleId[] = [],
  headers?: HttpRequest['headers'],
  auth?: 'body' | 'basic',
): Promise<{ res: HttpResponse; verifier?: string; flow: RuleId[] }> {
  const pkce = t.oauth.app(app).clientSecret ? undefined : t.oauth.pkce();
  const flow = [...codeFlowRules(t, app), ...rules];
  const code = await authorizeCode(
    t,
    app,
    pkce ? { ...params, code_challenge: pkce.challenge, code_challenge_method: 'S256' } : params,
    flow,
  );
  const res = await exchangeCode(t, app, code, pkce ? { code_verifier: pkce.verifier } : {}, headers, auth);
  return { res, verifier: pkce?.verifier, flow };
}
