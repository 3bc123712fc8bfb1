/**
 * Assertions and small flows the OAuth suites (grants, device, tokens, oidc, cors) share.
 * Messages name what was wrong and never carry a token, a code or a secret: details hold
 * statuses, error codes and field names only.
 */
import type { AppRole, CheckContext, HttpResponse, TokenResponse } from '../types.js';

export const TOKEN_PATH = '/oauth/token';
export const REVOKE_PATH = '/oauth/revoke';
export const TOKEN_INFO_PATH = '/oauth/token/info';
export const CURRENT_USER_PATH = '/api/v4/user';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The body of a response as a plain object, or undefined when it is not a JSON object. */
export function jsonObject(res: HttpResponse): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(res.text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The response says it is JSON (media type application/json; parameters are judged by expectExactJsonType). */
export function expectJsonType(t: CheckContext, res: HttpResponse, what: string): void {
  const type = res.headers.get('content-type');
  t.expect((type ?? '').split(';')[0].trim().toLowerCase() === 'application/json', `${what}: Content-Type must be application/json`, {
    status: res.status,
    contentType: type,
  });
}

/** Exactly `application/json`, no charset parameter: the real service's wire format (ENC-JSON-CONTENT-TYPE, a should). */
export function expectExactJsonType(t: CheckContext, res: HttpResponse, what: string): void {
  const type = res.headers.get('content-type');
  t.expect(type === 'application/json', `${what}: Content-Type must be exactly application/json, without parameters`, {
    status: res.status,
    contentType: type,
  });
}

/** Token endpoint answers must not be cached (RFC 6749 §5.1). */
export function expectNoStore(t: CheckContext, res: HttpResponse, what: string): void {
  const cacheControl = res.headers.get('cache-control') ?? '';
  t.expect(
    cacheControl
      .toLowerCase()
      .split(',')
      .some((d) => d.trim() === 'no-store'),
    `${what}: Cache-Control must contain no-store`,
    { status: res.status, cacheControl: cacheControl || null },
  );
}

/** A 200 token response as an object; fails with the error code otherwise. */
export function expectTokenOk(t: CheckContext, res: HttpResponse, what: string): TokenResponse {
  const body = jsonObject(res);
  t.expect(res.status === 200 && body && typeof body.access_token === 'string', `${what}: expected 200 with a token response`, {
    status: res.status,
    error: body?.error ?? null,
    errorDescription: body?.error_description ?? null,
  });
  return body as unknown as TokenResponse;
}

export interface ExpectedError {
  /** Accepted statuses (one or several). */
  status: number | number[];
  /** Accepted `error` codes. */
  error: string | string[];
}

/** An OAuth error body (`error`, `error_description` strings) with one of the expected statuses and codes. */
export function expectOAuthError(t: CheckContext, res: HttpResponse, expected: ExpectedError, what: string): Record<string, unknown> {
  const statuses = ([] as number[]).concat(expected.status);
  const errors = ([] as string[]).concat(expected.error);
  const body = jsonObject(res);
  const details = { status: res.status, error: body?.error ?? null, expectedStatus: statuses, expectedError: errors };
  t.expect(!(body && typeof body.access_token === 'string'), `${what}: expected a refusal, got a token response`, details);
  t.expect(statuses.includes(res.status), `${what}: expected status ${statuses.join(' or ')}, got ${res.status}`, details);
  t.expect(body !== undefined, `${what}: the refusal must be an OAuth error body (JSON object)`, {
    ...details,
    contentType: res.headers.get('content-type'),
  });
  t.expect(typeof body.error === 'string' && errors.includes(body.error), `${what}: expected error ${errors.join(' or ')}`, details);
  t.expect(typeof body.error_description === 'string', `${what}: the OAuth error body must carry an error_description string`, details);
  expectJsonType(t, res, what);
  return body;
}

export function tokenInfo(t: CheckContext, token: string, via: 'header' | 'query' = 'header'): Promise<HttpResponse> {
  return via === 'header' ? t.http.get(TOKEN_INFO_PATH, { bearer: token }) : t.http.get(TOKEN_INFO_PATH, { query: { access_token: token } });
}

/** The access token works on token info and on the REST API. */
export async function expectAccessAlive(t: CheckContext, token: string, what: string): Promise<void> {
  const info = await tokenInfo(t, token);
  t.expect(info.status === 200, `${what}: the access token must be accepted by ${TOKEN_INFO_PATH}`, { status: info.status });
  const user = await t.http.get(CURRENT_USER_PATH, { bearer: token });
  t.expect(user.status === 200, `${what}: the access token must be accepted by ${CURRENT_USER_PATH}`, { status: user.status });
}

/** The access token is refused by token info (401 OAuth error) and by the REST API (401). */
export async function expectAccessDead(t: CheckContext, token: string, what: string): Promise<void> {
  const info = await tokenInfo(t, token);
  t.expect(info.status === 401, `${what}: ${TOKEN_INFO_PATH} must refuse the access token with 401`, { status: info.status });
  const user = await t.http.get(CURRENT_USER_PATH, { bearer: token });
  t.expect(user.status === 401, `${what}: ${CURRENT_USER_PATH} must refuse the access token with 401`, { status: user.status });
}

/** The client parameters a refresh needs besides the refresh token, per application kind (source: POST /oauth/token). */
export function refreshForm(t: CheckContext, app: AppRole, refreshToken: string, verifier?: string): Record<string, string | undefined> {
  const config = appConfig(t, app);
  return {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    redirect_uri: config.redirectUri,
    code_verifier: config.clientSecret ? undefined : verifier,
  };
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

export function appConfig(t: CheckContext, app: AppRole) {
  const config = t.config.applications?.[app];
  if (!config) t.skip(`the target config names no ${app} application`);
  return config;
}

/**
 * Run /oauth/authorize for `app` with explicit parameters and approve through the driver.
 * Returns the redirect (code or error in its query) or fails when the provider did not redirect.
 */
export async function authorizeRedirect(
  t: CheckContext,
  app: AppRole,
  params: Record<string, string | undefined>,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const { redirect, response } = await t.driver.authorize(t.oauth.authorizeUrl(app, params), decision);
  t.expect(redirect, 'authorize: the provider did not redirect back to the redirect_uri', { status: response.status });
  return redirect;
}

/** The code of an approved authorization (fails with the redirect's error code otherwise). */
export async function authorizeCode(t: CheckContext, app: AppRole, params: Record<string, string | undefined>): Promise<string> {
  const redirect = await authorizeRedirect(t, app, params);
  const code = redirect.searchParams.get('code');
  t.expect(code, 'authorize: the redirect carries no code', { error: redirect.searchParams.get('error') });
  return code;
}

/** Exchange a code: client auth per app, redirect_uri of the app unless overridden (t.oauth tracks the tokens). */
export function exchangeCode(t: CheckContext, app: AppRole, code: string, extra: Record<string, string | undefined> = {}): Promise<HttpResponse> {
  return t.oauth.tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: appConfig(t, app).redirectUri, ...extra }, { app });
}

/**
 * A fresh token pair through the code flow (PKCE for an application without a secret), with the
 * verifier a PKCE refresh needs.
 */
export async function mintPair(t: CheckContext, app: AppRole, params: Record<string, string | undefined> = {}): Promise<{ tokens: TokenResponse; verifier?: string }> {
  const pkce = appConfig(t, app).clientSecret ? undefined : t.oauth.pkce();
  const code = await authorizeCode(t, app, pkce ? { ...params, code_challenge: pkce.challenge, code_challenge_method: 'S256' } : params);
  const res = await exchangeCode(t, app, code, pkce ? { code_verifier: pkce.verifier } : {});
  return { tokens: expectTokenOk(t, res, `code exchange (${app} application)`), verifier: pkce?.verifier };
}
