/** GET /oauth/authorize (oauthAuthorize): validate, ask the signed-in user for consent. */
import { redirect } from '../http.js';
import type { Handler } from '../types.js';
import { consentPage } from '../pages/consent.js';
import { messagePage } from '../pages/layout.js';
import { validateAuthorize } from './authorize-request.js';
import { OAuthError } from './errors.js';
import { queryParams, type Params } from './params.js';
import { signedIn, signInLocation } from './session.js';

export const oauthAuthorize: Handler = (ctx) => {
  let params: Params;
  try {
    params = queryParams(ctx);
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: queryParams throws only OAuth errors; the test is the bug guard
    if (error instanceof OAuthError) return messagePage(400, 'Authorization request refused', error.description);
    throw error;
  }
  const result = validateAuthorize(ctx.sim, params);
  if (result.kind === 'page') return messagePage(result.status, 'Authorization request refused', result.message);
  if (result.kind === 'redirect') return redirect(result.location);
  const who = signedIn(ctx.sim, ctx.request);
  if (!who) return redirect(signInLocation(ctx.url.pathname + ctx.url.search));
  return consentPage(result.request, who.csrf, who.user.username);
};
