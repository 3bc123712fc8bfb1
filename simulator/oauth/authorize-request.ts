/**
 * Validation of an authorization request (RFC 6749 §4.1.1, §4.1.2.1; RFC 7636 §4.3), shared by
 * the consent page (GET) and the decision (POST), which re-checks what the form carried.
 * A bad client or redirect URI gets an error page, never a redirect; every later problem goes
 * back to the client's redirect URI with `error` and `state`.
 */
import type { Sim } from '../types.js';
import type { Application } from '../store.js';
import { OAuthError } from './errors.js';
import type { Params } from './params.js';
import { grantScopes } from './scopes.js';
import { CHALLENGE_METHODS, challengeProblem } from './pkce.js';

export interface AuthorizeRequest {
  app: Application;
  redirectUri: string;
  state: string | null;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  nonce: string | null;
}

export type AuthorizeValidation =
  | { kind: 'page'; status: number; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'ok'; request: AuthorizeRequest };

/** redirect_uri with the given parameters appended to whatever query it already has. */
export function redirectTo(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v != null) url.searchParams.append(k, v);
  return url.toString();
}

/** A loopback IP literal, where a native app's redirect listener lives (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = /^(127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Is `uri` a registered redirect URI of `app`? Exactly, or (GRANT-REDIRECT-LOOPBACK-PORT) for a
 * public (native) application a registered http loopback IP URI with another port: the port is
 * the only part that may differ. A confidential application is a server listening on the port it
 * registered; another port of the host is whatever else listens there, so it never gets a code.
 */
function registered(sim: Sim, app: Application, uri: string): boolean {
  const uris = app.redirectUris;
  if (uris.includes(uri)) return true;
  if (app.confidential || sim.fault('loopback-port-exact') || !URL.canParse(uri)) return false;
  const asked = new URL(uri);
  if (asked.protocol !== 'http:' || !LOOPBACK_HOSTS.test(asked.hostname)) return false;
  const portless = (u: URL) => Object.assign(new URL(u.href), { port: '' }).href;
  return uris.some(
    (r) => URL.canParse(r) && new URL(r).protocol === 'http:' && portless(new URL(r)) === portless(asked),
  );
}

export function validateAuthorize(sim: Sim, params: Params): AuthorizeValidation {
  const clientId = params.get('client_id');
  if (!clientId) return { kind: 'page', status: 400, message: 'The request has no client_id.' };
  const app = sim.store.applications.get(clientId);
  if (!app) return { kind: 'page', status: 401, message: 'Client authentication failed: unknown client_id.' };
  const redirectUri = params.get('redirect_uri');
  if (!redirectUri) return { kind: 'page', status: 400, message: 'The request has no redirect_uri.' };
  if (!registered(sim, app, redirectUri) && !sim.fault('authorize-open-redirect')) {
    return { kind: 'page', status: 400, message: 'The redirect URI is not registered for this application.' };
  }
  let target: URL;
  try {
    target = new URL(redirectUri);
  } catch {
    return { kind: 'page', status: 400, message: 'The redirect URI is not an absolute URI.' };
  }
  // Stryker disable next-line LogicalOperator: an absent state as undefined is left out exactly as null is
  const state = params.get('state') ?? null;
  const back = (error: string, description: string): AuthorizeValidation => ({
    kind: 'redirect',
    location: redirectTo(target.toString(), { error, error_description: description, state }),
  });

  const responseType = params.get('response_type');
  if (!responseType) return back('invalid_request', 'The parameter response_type is missing');
  if (responseType !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported');

  let scopes: string[];
  try {
    scopes = grantScopes(params.get('scope'), app.scopes, !sim.fault('scope-not-enforced'));
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: grantScopes throws only OAuth errors; the test is the bug guard
    if (error instanceof OAuthError) return back(error.error, error.description);
    throw error;
  }

  const challenge = params.get('code_challenge') || null;
  const method = params.get('code_challenge_method') || null;
  if (!challenge && method) return back('invalid_request', 'code_challenge_method was sent without code_challenge');
  if (challenge) {
    if (!method || !(CHALLENGE_METHODS as readonly string[]).includes(method)) {
      return back('invalid_request', `code_challenge_method must be ${CHALLENGE_METHODS.join(' or ')}`);
    }
    const problem = challengeProblem(challenge);
    if (problem) return back('invalid_request', problem);
  } else if (!app.confidential) {
    return back('invalid_request', 'A public application must send a PKCE code_challenge');
  }

  return {
    kind: 'ok',
    request: {
      app,
      redirectUri,
      state,
      scopes,
      codeChallenge: challenge,
      codeChallengeMethod: method,
      nonce: params.get('nonce') || null,
    },
  };
}
