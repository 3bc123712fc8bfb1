/**
 * grant_type=password (RFC 6749 §4.3), deprecated and gone from release 19.0. Client
 * credentials are optional (HTTP Basic or body) unless the admin setting or the hosted offering
 * demands them; a public application may not use it (unauthorized_client). Refused for
 * two-factor users and while password authentication for Git over HTTP(S) is off. Scope
 * defaults to `api`; the response carries only access_token, token_type and expires_in.
 */
import { userByLogin } from '../../store.js';
import type { Application } from '../../store.js';
import { authenticateClient, presentedClient } from '../client-auth.js';
import { matchesDigest } from '../../digest.js';
import { accountKey, accountLocked, recordFailure, retryAfter } from '../throttle.js';
import { InvalidClient, InvalidGrant, UnauthorizedClient } from '../errors.js';
import { passwordGrantAvailable, passwordGrantNeedsClient } from '../gates.js';
import { required } from '../params.js';
import { KNOWN_SCOPES, grantScopes } from '../scopes.js';
import { mintTokens, passwordTokenBody } from '../tokens.js';
import { tokenResponse, type Grant } from './grant.js';

export const password: Grant = {
  type: 'password',
  available: passwordGrantAvailable,
  async handle(ctx, params) {
    const { sim } = ctx;
    const username = required(params, 'username');
    const secret = required(params, 'password');

    const credentials = presentedClient(ctx.request, params);
    let app: Application | null = null;
    if (credentials) app = authenticateClient(sim, credentials);
    else if (passwordGrantNeedsClient(sim))
      throw InvalidClient('The password grant requires client authentication (HTTP Basic client_id:client_secret)');
    // RFC 6749 §4.3 is for trusted first-party clients: one that cannot keep a secret may not use it.
    if (app && !app.confidential) throw UnauthorizedClient('A public application may not use the password grant');

    const scopes = grantScopes(params.get('scope'), app ? app.scopes : [...KNOWN_SCOPES]);

    if (!sim.options.settings.gitPasswordAuth && !sim.fault('git-password-setting-ignored'))
      throw InvalidGrant('Password authentication is disabled on this instance');
    const user = userByLogin(sim.store, username);
    // AUTH-BRUTE-FORCE-THROTTLED: invalid_grant with a description, whatever the password.
    const key = accountKey(user, username, ctx);
    if (accountLocked(sim, key))
      throw InvalidGrant(`Too many failed attempts for this account; try again in ${retryAfter(sim, key)} seconds`);
    if (!user || !matchesDigest(secret, user.passwordHash)) {
      recordFailure(sim, key);
      throw InvalidGrant('Invalid username or password');
    }
    if (user.twoFactor && !sim.fault('password-grant-two-factor')) {
      throw InvalidGrant('Two-factor authentication is enabled for this user: use a personal access token');
    }

    const issued = mintTokens(sim, { userId: user.id, app, scopes, refresh: false });
    return tokenResponse(sim, passwordTokenBody(sim, issued));
  },
};
