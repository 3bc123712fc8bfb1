/**
 * POST /oauth/authorize (oauthAuthorizeDecision): the consent form's answer. Approve issues a
 * single-use code bound to client, redirect URI, scopes, PKCE challenge and nonce; deny sends
 * access_denied. Both return `state` unchanged (RFC 6749 §4.1.2).
 */
import { limits } from '../../spec/index.js';
import { redirect } from '../http.js';
import type { Handler, Sim } from '../types.js';
import type { AuthorizationCode } from '../store.js';
import { hexId } from '../random.js';
import { digest } from '../digest.js';
import { makeRoom, MOST_HELD } from '../evict.js';
import { FIELDS, messagePage } from '../pages/layout.js';
import { redirectTo, validateAuthorize } from './authorize-request.js';
import { OAuthError } from './errors.js';
import { bodyParams, type Params } from './params.js';
import { csrfValid, signedIn } from './session.js';

/** The fault code-lifetime-long's lifetime: past limits.authorizationCodeLifetime, far short of never. */
const CODE_LIFETIME_LONG = 3600;

/**
 * A new code's lifetime, faults included: one that never expires is kept by the sweep too (a
 * check of the condition alone lost the code to the sweep a lifetime and its grace later).
 */
const codeLifetime = (sim: Sim): number =>
  sim.fault('code-never-expires')
    ? Number.POSITIVE_INFINITY
    : sim.fault('code-lifetime-long')
      ? CODE_LIFETIME_LONG
      : limits().authorizationCodeLifetime;

export const oauthAuthorizeDecision: Handler = async (ctx) => {
  const { sim } = ctx;
  const who = signedIn(sim, ctx.request);
  if (!who) return messagePage(401, 'Authorization refused', 'Sign in first, then open the authorization link again.');
  let params: Params;
  try {
    params = await bodyParams(ctx);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: bodyParams throws only OAuth errors; the test is the bug guard
    if (error instanceof OAuthError) return messagePage(400, 'Authorization refused', error.description);
    throw error;
  }
  if (!csrfValid(who.csrf, params.get(FIELDS.csrf))) {
    return messagePage(
      422,
      'Authorization refused',
      'The form expired or the request was forged (invalid authenticity token).',
    );
  }
  const result = validateAuthorize(sim, params);
  if (result.kind === 'page') return messagePage(result.status, 'Authorization request refused', result.message);
  if (result.kind === 'redirect') return redirect(result.location);
  const request = result.request;
  const decision = params.get(FIELDS.decision);
  const state = sim.fault('state-dropped') ? null : request.state;
  if (decision === 'deny') {
    return redirect(
      redirectTo(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner denied the request',
        state,
      }),
    );
  }
  if (decision !== 'approve') return messagePage(400, 'Authorization refused', 'Choose Authorize or Deny.');
  const value = hexId(32);
  const code: AuthorizationCode = {
    digest: digest(value),
    applicationId: request.app.id,
    userId: who.user.id,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    nonce: request.nonce,
    createdAt: sim.clock.nowSeconds(),
    expiresIn: codeLifetime(sim),
    exchangedFor: null,
    authTime: who.session.createdAt,
  };
  makeRoom(sim.store.codes, MOST_HELD.codes);
  sim.store.codes.set(code.digest, code);
  return redirect(redirectTo(request.redirectUri, { code: value, state }));
};
