/**
 * The refresh token of a code response is the premise of every check that refreshes or revokes
 * one. Many providers issue it only for `offline_access` (Ory Hydra, Okta, Entra ID, panva's
 * oidc-provider by default), which breaks TOK-REFRESH-TOKEN-PRESENT (L29): one cause, said once per
 * run. The first check that meets it (one judging the code response's fields, or the first that
 * needs the token) fails on that rule; each later check that needs a refresh token is skipped,
 * naming it, rather than failed again on the same rule.
 */
import type { CheckContext, Http, TokenResponse } from '../types.js';

/** Runs (by their Http) whose code responses were found without a refresh_token. */
const said = new WeakSet<Http>();

export const hasRefreshToken = (tokens: TokenResponse | undefined): boolean =>
  typeof tokens?.refresh_token === 'string' && tokens.refresh_token.length > 0;

/** A code response without a refresh token was judged in this run (TOK-REFRESH-TOKEN-PRESENT failed there). */
export function refreshTokenMissingSaid(t: CheckContext): boolean {
  return said.has(t.http);
}

/** Remember that this run judged a code response without a refresh token. */
export function sayRefreshTokenMissing(t: CheckContext): void {
  said.add(t.http);
}
