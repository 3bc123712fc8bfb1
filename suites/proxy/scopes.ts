/**
 * Scopes followed on the traffic: what the client asked for (the authorization request, the
 * device authorization, the password grant's scope) is the ceiling of what the tokens of that
 * grant may carry (SCOPE-GRANTED-SUBSET), in the token response and in token info; a refresh
 * carries no more than the grant it came from (TOK-REFRESH-SCOPE-KEPT). A grant asked without
 * scope gets a default the proxy cannot know, so it is not judged.
 */
import type { CheckContext, HttpResponse } from '../types.js';
import { AUTHORIZE_PATH, DEVICE_GRANT, jsonObject } from '../shared/oauth.js';
import type { ClientSink } from './client.js';
import { scopesOf } from '../shared/scope-list.js';
import { digest, type Ceiling, type Flows, type Observed } from './flows.js';
import { onwardOf } from '../drivers/html.js';

export { AUTHORIZE_PATH } from '../shared/oauth.js';

const split = scopesOf;
/** Keys of the scope memory: one digest per kind, so a code and a token never meet. */
const key = (kind: 'code' | 'access' | 'refresh', secret: string) => digest(`${kind}\n${secret}`);
/** An authorization request and the answer that carries its code share client, redirect URI and state. */
const authorizationKey = (p: URLSearchParams) =>
  digest(`${p.get('client_id') ?? ''}\n${p.get('redirect_uri') ?? ''}\n${p.get('state') ?? ''}`);

/**
 * Where an authorization answer sends the client, read as the drivers follow it (onwardOf): a
 * redirect's Location, or a 2xx page's Refresh header or meta refresh. The source has the user
 * "redirected to redirect_uri with query parameters code and state", and RFC 6749 §3.1.2 lets the
 * redirect take any way the user-agent has (IdentityServer's Redirect page refreshes). A form_post
 * page (response_mode, which the source does not name) carries them in a body: not read.
 */
export function sentTo(res: HttpResponse): URL | undefined {
  const to = onwardOf(res)?.to;
  return to !== undefined && URL.canParse(to, res.url) ? new URL(to, res.url) : undefined;
}

/**
 * /oauth/authorize: a client's authorization request (GET) remembers the scope it asked for and
 * notes a request without PKCE; an answer that sends the client back with a code (after consent,
 * or at once) passes that scope on to the code.
 */
export function noteAuthorization(
  ex: Observed,
  res: HttpResponse,
  params: URLSearchParams,
  flows: Flows,
  client?: ClientSink,
): void {
  const id = authorizationKey(params);
  if (ex.method === 'GET' && params.get('response_type') === 'code' && params.get('client_id')) {
    // The provider's redirect back after sign-in asks an open authorization again: the client sent it once.
    const again = flows.authorizations.get(id, ex.at)?.open;
    if (!again && !params.get('code_challenge')) client?.({ habit: 'no-pkce', where: `GET ${AUTHORIZE_PATH}` });
    flows.authorizations.set(id, ex.at, { scope: params.get('scope') ?? '', open: true });
  }
  const code = sentTo(res)?.searchParams.get('code');
  const asked = flows.authorizations.get(id, ex.at);
  if (!code || !asked) return;
  flows.scopes.set(key('code', code), ex.at, { scope: split(asked.scope), rule: 'SCOPE-GRANTED-SUBSET' });
  // Its code sent back, the authorization is over: the same request again is a new one.
  flows.authorizations.set(id, ex.at, { ...asked, open: false });
}

/** What the token request's grant allows, if the proxy saw it asked. */
function ceilingOf(params: URLSearchParams, ex: Observed, flows: Flows): Ceiling | undefined {
  const grant = params.get('grant_type');
  const scope = params.get('scope');
  if (grant === 'authorization_code' && params.get('code'))
    return flows.scopes.get(key('code', params.get('code')!), ex.at);
  if (grant === 'password' && scope) return { scope: split(scope), rule: 'SCOPE-GRANTED-SUBSET' };
  if (grant === DEVICE_GRANT && params.get('device_code')) {
    const asked = flows.devices.get(digest(params.get('device_code')!), ex.at)?.scope;
    return asked ? { scope: split(asked), rule: 'SCOPE-GRANTED-SUBSET' } : undefined;
  }
  if (grant === 'refresh_token' && params.get('refresh_token')) {
    const before = flows.scopes.get(key('refresh', params.get('refresh_token')!), ex.at);
    return before && { scope: before.scope, rule: 'TOK-REFRESH-SCOPE-KEPT' };
  }
  return undefined;
}

function expectWithin(t: CheckContext, granted: string[], ceiling: Ceiling, where: string): void {
  const wider = granted.filter((s) => !ceiling.scope.includes(s));
  t.soft(
    wider.length === 0,
    `${where}: the token carries scopes beyond those ${ceiling.rule === 'TOK-REFRESH-SCOPE-KEPT' ? 'of the grant it was refreshed from' : 'asked for'}: ${wider.join(' ')}`,
    { rules: [ceiling.rule] },
  );
}

/** A token response against the scope its grant asked for; the tokens remember that ceiling. */
export function judgeGrantedScope(
  t: CheckContext,
  ex: Observed,
  res: HttpResponse,
  params: URLSearchParams,
  flows: Flows,
): void {
  const body = res.status === 200 ? jsonObject(res) : undefined;
  if (!body || typeof body.access_token !== 'string') return;
  const ceiling = ceilingOf(params, ex, flows);
  if (!ceiling || ceiling.scope.length === 0) return;
  // RFC 6749 §5.1: scope may be left out when it is what was asked.
  const granted = typeof body.scope === 'string' ? split(body.scope) : undefined;
  if (granted) expectWithin(t, granted, ceiling, `POST ${ex.target.split('?')[0]}`);
  const kept: Ceiling = { scope: ceiling.scope, rule: ceiling.rule };
  flows.scopes.set(key('access', body.access_token), ex.at, kept);
  // A refresh token's grant is what the first tokens were issued with (the smaller, when narrowed).
  if (typeof body.refresh_token === 'string')
    flows.scopes.set(key('refresh', body.refresh_token), ex.at, {
      scope: ceiling.rule === 'TOK-REFRESH-SCOPE-KEPT' ? ceiling.scope : (granted ?? ceiling.scope),
      rule: 'TOK-REFRESH-SCOPE-KEPT',
    });
}

/** Token info's scope for a token whose grant the proxy saw asked. */
export function judgeInfoScope(t: CheckContext, ex: Observed, res: HttpResponse, token: string, flows: Flows): void {
  const scope = res.status === 200 ? jsonObject(res)?.scope : undefined;
  const ceiling = flows.scopes.get(key('access', token), ex.at);
  if (!ceiling || !Array.isArray(scope)) return;
  expectWithin(
    t,
    scope.filter((s): s is string => typeof s === 'string'),
    ceiling,
    `GET ${ex.target.split('?')[0]}`,
  );
}

/**
 * The redirect that answers an authorization (a code or an error, after consent or at once;
 * sentTo) carries the request's state exactly, and none when none was sent (GRANT-STATE-ECHO).
 */
export function judgeStateEcho(t: CheckContext, ex: Observed, res: HttpResponse, params: URLSearchParams): void {
  const back = sentTo(res)?.searchParams;
  if (!back || (!back.has('code') && !back.has('error'))) return;
  const sent = params.get('state');
  t.soft(
    back.get('state') === sent,
    sent === null
      ? `${ex.method} ${AUTHORIZE_PATH}: a redirect for a request without state carries one`
      : `${ex.method} ${AUTHORIZE_PATH}: the redirect must carry state exactly as sent`,
    { rules: ['GRANT-STATE-ECHO'] },
  );
}
