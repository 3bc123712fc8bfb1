/**
 * Passive judging: each exchange the proxy saw, held to the rules that can be judged from the
 * traffic alone, with the suites' own assertion helpers (so a rule's sentence lives in one
 * place). Pure: an exchange and the flow state in, verdicts out; it sends nothing.
 */
import { limits, profiles, type RuleId } from '../../spec/index.js';
import type { CheckContext, HttpResponse } from '../types.js';
import {
  CURRENT_USER_PATH,
  DEVICE_GRANT,
  DISCOVERY_PATH,
  REVOKE_PATH,
  STANDARD_ERRORS,
  deviceErrors,
  TOKEN_INFO_PATH,
  TOKEN_PATH,
  USERINFO_PATH,
  expectExactJsonType,
  expectJsonType,
  expectNoStore,
  expectOAuthError,
  expectJsonBody,
  expectTokenOk,
  jsonObject,
} from '../shared/oauth.js';
import { jsonValue } from '../shared/json.js';
import { own } from '../shared/own.js';
import { expectTokenFields, type Grant } from '../grants/token-fields.js';
import { paginationOnly, parseLinkHeader, numberHeader } from '../pagination/links.js';
import { expectKeepsParams } from '../pagination/traverse.js';
import { expectEmptyEnd, expectNoOffsetHeaders } from '../pagination/keyset-checks.js';
import { digest, endOf, remembered, sentAfter, type Flows, type Observed } from './flows.js';
import { linkedKeys, pageKey } from './urls.js';

export type { Flows, Observed } from './flows.js';
import { AUTHORIZE_DEVICE_PATH } from '../device/flow.js';
import {
  expectNotGranted,
  expectPreflightAnswer,
  hasPreflight,
  isStandardHeader,
  preflightServed,
} from '../cors/checks.js';
import type { ClientSink } from './client.js';
import { expectInfoAliases } from '../tokens/info.js';
import { judgeLegacyJwks, judgeRemovedAttributes, judgeShape } from './shapes.js';
import { judgeDevicePoll, judgeDeviceStart, noteClockMove } from './device.js';
import {
  AUTHORIZE_PATH,
  judgeGrantedScope,
  judgeInfoScope,
  judgeStateEcho,
  noteAuthorization,
  sentTo,
} from './scopes.js';
import { judgeWith, observedResponse, type Verdict } from './recorder.js';
import { judgeKeysetWalk, keysetOffer } from './pages.js';
import { decodeContent } from '../target/content-coding.js';
import {
  judgeDiscoveryLists,
  judgeGrantListed,
  judgeResponseTypeListed,
  judgeRs256Listed,
  listedIn,
} from '../oidc/discovery-lists.js';
import { DEFAULT_MAX_BODY_BYTES } from '../target/http.js';
import { isRateLimited } from '../target/rate.js';
import { noteRetryAfter } from './waits.js';

/** Entries per kind of state: beyond them the oldest are forgotten (bounded memory). */
export const MAX_FLOW_ENTRIES = 100_000;

/** How long a Retry-After is remembered at most (waits.ts). */
const MAX_WAIT_WATCHED_MS = 3600 * 1000;

/**
 * Fresh protocol state. `release` is the one the target is held to (the proxy's `--release`):
 * tables with release windows (the keyset support table) are read at it.
 */
export function createFlows({
  max = MAX_FLOW_ENTRIES,
  release = profiles().defaults.release,
  basePath = '',
}: { max?: number; release?: string; basePath?: string } = {}): Flows {
  const { authorizationCodeLifetime, accessTokenLifetime, deviceCodeLifetime } = limits();
  return {
    release,
    basePath,
    // A code cannot be exchanged after its lifetime: a reuse later is judged by expiry, not here.
    codes: remembered(authorizationCodeLifetime * 1000, max),
    deviceCodes: remembered(limits().deviceCodeLifetime * 1000, max),
    // A spent refresh token has no lifetime of its own; the access token's bounds how long we watch.
    spentRefresh: remembered(accessTokenLifetime * 1000, max),
    pairs: remembered(accessTokenLifetime * 1000, max),
    deadAccess: remembered(accessTokenLifetime * 1000, max),
    owners: remembered(accessTokenLifetime * 1000, max),
    // Twice the lifetime: a poll after expiry is judged too.
    devices: remembered(2 * deviceCodeLifetime * 1000, max),
    authorizations: remembered(authorizationCodeLifetime * 1000, max),
    scopes: remembered(accessTokenLifetime * 1000, max),
    linked: remembered<'link' | 'number'>(accessTokenLifetime * 1000, max),
    collections: remembered(accessTokenLifetime * 1000, max),
    keysetLast: remembered(accessTokenLifetime * 1000, max),
    // Waits longer than an hour are not followed: the entry goes, the client is not noted after it.
    waits: remembered<number>(MAX_WAIT_WATCHED_MS, max),
    clockOffsetMs: 0,
  };
}

const GRANTS: Record<string, Grant> = {
  authorization_code: 'authorization_code',
  refresh_token: 'refresh_token',
  password: 'password',
  [DEVICE_GRANT]: 'device_code',
};

/** The token request's parameters: form body first, then the query (the endpoint reads both). */
function tokenParams(ex: Observed, url: URL): URLSearchParams {
  const params = new URLSearchParams(url.search);
  const type = (ex.requestHeaders.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!ex.requestBody) return params;
  const text = ex.requestBody.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(text)) if (!params.has(k)) params.set(k, v);
  } else if (type === 'application/json') {
    const body = jsonValue({ text });
    if (body && typeof body === 'object' && !Array.isArray(body))
      for (const [k, v] of Object.entries(body)) if (typeof v === 'string' && !params.has(k)) params.set(k, v);
  }
  return params;
}

/**
 * A discovery document answered: the lists it must carry and RS256 among its algorithms, judged as
 * `run` judges them (OIDC-DISCOVERY, OIDC-DISCOVERY-RS256), and its grant and response types kept,
 * to hold the answers that follow to them. The lists only once its shape passed (`shaped`): a list
 * missing is the shape's failure, said there once.
 */
function judgeDiscovery(ex: Observed, path: string, res: HttpResponse, flows: Flows, shaped: boolean): Verdict[] {
  if (ex.method !== 'GET' || !path.endsWith(DISCOVERY_PATH) || ex.status !== 200) return [];
  const doc = jsonObject(res);
  if (!doc) return [];
  const list = (field: string) => (Array.isArray(doc[field]) ? listedIn(doc, field) : undefined);
  flows.discovery = { grantTypes: list('grant_types_supported'), responseTypes: list('response_types_supported') };
  const algs = doc.id_token_signing_alg_values_supported;
  return [
    ...(shaped ? judgeWith((t) => judgeDiscoveryLists(t, doc)) : []),
    ...(Array.isArray(algs) ? judgeWith((t) => judgeRs256Listed(t, algs)) : []),
  ];
}

/** A token request's grant type, served or refused as unsupported, against the grant types discovery listed. */
function judgeGrantOfDiscovery(t: CheckContext, res: HttpResponse, params: URLSearchParams, flows: Flows): void {
  const grant = params.get('grant_type');
  const listed = flows.discovery?.grantTypes;
  // `implicit` names a response type, never a token request (as oidc.discovery reads it).
  if (!grant || grant === 'implicit' || !listed) return;
  // Served: a 200, or an OAuth error about the request (invalid_grant). A client the provider did
  // not know, and an answer that is no OAuth error (throttled, an empty 401, a 404), tell nothing of
  // the grant: it may be refused before its grant is read.
  const error = jsonObject(res)?.error;
  const oauthError = typeof error === 'string' && res.status >= 400 && res.status < 500 && res.status !== 429;
  if (res.status !== 200 && (!oauthError || error === 'invalid_client')) return;
  judgeGrantListed(t, grant, error !== 'unsupported_grant_type', listed, res.status);
}

/** An authorization request's answer, for a response type other than code that discovery listed. */
function judgeResponseTypeOfDiscovery(t: CheckContext, res: HttpResponse, params: URLSearchParams, flows: Flows) {
  const responseType = params.get('response_type');
  if (!responseType || responseType === 'code' || !flows.discovery?.responseTypes?.includes(responseType)) return;
  judgeResponseTypeListed(t, responseType, sentTo(res));
}

/** Token and token error responses (stateless): no-store, JSON, members per grant, error bodies. */
function judgeToken(t: CheckContext, ex: Observed, res: HttpResponse, params: URLSearchParams): void {
  const grant = own(GRANTS, params.get('grant_type') ?? '');
  const what = `POST ${TOKEN_PATH}${grant ? ` (${grant} grant)` : ''}`;
  if (res.status >= 500 || !ex.responseBody) return;
  if (res.status === 200) {
    // No JSON at all (form-encoded, as GitHub answers a client that did not ask for JSON): judged as the run judges it.
    if (!jsonObject(res)) return expectJsonBody(t, res, what, ['TOK-RESPONSE-JSON', 'ENC-RESPONSE-JSON']);
    const body = expectTokenOk(t, res, what);
    // The label is ENC-RESPONSE-JSON's, as in the checks: a JSON token response under another label is still one.
    expectJsonType(t, res, what);
    // A match proves the grant's response rules (expectTokenFields names them), as in the checks.
    if (grant) expectTokenFields(t, body, grant, what);
  } else if (res.status >= 400) {
    // A redirect is no refusal (a token endpoint elsewhere: the code flow's rules, as the run says).
    // Any standard code is a right refusal here (the proxy does not know which one the request
    // deserved); a code of the server's own breaks ERR-TOKEN-STANDARD-CODES. The device grant adds
    // its own codes (RFC 8628 §3.5) to RFC 6749's.
    expectOAuthError(
      t,
      res,
      {
        status: res.status,
        error: grant === 'device_code' ? [...STANDARD_ERRORS, ...deviceErrors()] : STANDARD_ERRORS,
      },
      what,
    );
    // invalid_client may answer 401 (grants.client-authentication-failures): to body credentials
    // 401 or 400, to HTTP Basic 401 with a challenge (RFC 6749 §5.2).
    if (jsonObject(res)?.error !== 'invalid_client') return;
    const basic = /^basic\s/i.test(ex.requestHeaders.get('authorization') ?? '');
    const statuses = basic ? [401] : [401, 400];
    t.soft(
      statuses.includes(res.status),
      `${what}: invalid_client must answer ${statuses.join(' or ')}, got ${res.status}`,
      {
        rules: basic ? ['AUTH-INVALID-CLIENT-BASIC'] : ['ERR-TOKEN-STATUS'],
      },
    );
    if (basic)
      t.soft(res.headers.has('www-authenticate'), `${what}: the 401 must carry a WWW-Authenticate header`, {
        rules: ['AUTH-INVALID-CLIENT-BASIC'],
      });
  }
}

/** Grants whose code yields tokens once (RFC 6749 §4.1.2, RFC 8628 §3.5). */
const ONCE: {
  grant: string;
  param: string;
  memory: 'codes' | 'deviceCodes';
  rule: RuleId;
  what: string;
  /**
   * The rule speaks of polls after the successful one (DEV-SINGLE-USE): one sent while that answer
   * was under way decides nothing. A code is exchanged once, whatever the order (GRANT-CODE-SINGLE-USE).
   */
  ordered: boolean;
}[] = [
  {
    grant: 'authorization_code',
    param: 'code',
    memory: 'codes',
    rule: 'GRANT-CODE-SINGLE-USE',
    what: 'an authorization code',
    ordered: false,
  },
  {
    grant: DEVICE_GRANT,
    param: 'device_code',
    memory: 'deviceCodes',
    rule: 'DEV-SINGLE-USE',
    what: 'a device code',
    ordered: true,
  },
];

/**
 * Token exchanges against what was seen before: a code answered with tokens twice, a refresh
 * that handed back the same refresh token, a redeemed refresh token that still works.
 */
function judgeTokenFlows(
  t: CheckContext,
  ex: Observed,
  res: HttpResponse,
  params: URLSearchParams,
  flows: Flows,
  client?: ClientSink,
) {
  const grant = params.get('grant_type');
  const issued = res.status === 200 && typeof jsonObject(res)?.access_token === 'string';
  if (res.status >= 500 || (res.status === 200 && !ex.responseBody)) return;
  for (const once of ONCE) {
    const code = params.get(once.param);
    if (grant !== once.grant || !code) continue;
    const memory = flows[once.memory];
    const key = digest(code);
    const used = memory.get(key, ex.at);
    if (used) {
      if (once.grant === 'authorization_code') client?.({ habit: 'reuses-code', where: `POST ${TOKEN_PATH}` });
      if (!once.ordered || sentAfter(ex, used))
        t.soft(!issued, `${TOKEN_PATH}: ${once.what} already answered with tokens was answered with tokens again`, {
          rules: [once.rule],
        });
    } else if (issued) memory.set(key, ex.at, endOf(ex));
  }
  const body = issued ? jsonObject(res)! : undefined;
  const sent = params.get('refresh_token');
  if (grant === 'refresh_token' && sent) {
    const key = digest(sent);
    const spent = flows.spentRefresh.get(key, ex.at);
    if (spent) {
      // Sent while the answer that spent it was under way: the provider may have served this one first.
      if (sentAfter(ex, spent.ended))
        t.soft(!issued, `${TOKEN_PATH}: a refresh token already redeemed or revoked was answered with tokens again`, {
          rules: [spent.rule],
        });
    } else if (body) {
      if (typeof body.refresh_token === 'string')
        t.soft(
          body.refresh_token !== sent,
          `${TOKEN_PATH}: a refresh answered with the same refresh token (no rotation)`,
          {
            rules: ['TOK-REFRESH-ROTATION'],
          },
        );
      flows.spentRefresh.set(key, ex.at, { rule: 'TOK-REFRESH-OLD-REFUSED', ended: endOf(ex) });
      // The rotation ends the access token issued with the redeemed refresh token.
      const old = flows.pairs.get(key, ex.at);
      if (old) flows.deadAccess.set(old, ex.at, { rule: 'TOK-REFRESH-ROTATION', ended: endOf(ex) });
    }
  }
  if (body && typeof body.refresh_token === 'string' && typeof body.access_token === 'string')
    flows.pairs.set(digest(body.refresh_token), ex.at, digest(body.access_token));
  // Whose tokens these are: only their own client's revocation ends them (REV-CLIENT-BOUND).
  const owner = clientOf(ex, params);
  for (const token of [body?.access_token, body?.refresh_token])
    if (typeof token === 'string' && owner) flows.owners.set(digest(token), ex.at, owner);
}

/** The client a token request or revocation names: client_id in the parameters, else HTTP Basic's user. */
function clientOf(ex: Observed, params: URLSearchParams): string | undefined {
  const basic = /^basic\s+(\S+)$/i.exec(ex.requestHeaders.get('authorization') ?? '')?.[1];
  if (basic) {
    const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
    // RFC 6749 §2.3.1: the client id is form-encoded inside Basic.
    try {
      return decodeURIComponent(user.replace(/\+/g, ' '));
    } catch {
      return user;
    }
  }
  return params.get('client_id') ?? undefined;
}

/**
 * A revocation answered 200 ends the token, whichever kind it is (RFC 7009 §2.2), when its own
 * client asked: another client's revocation may be answered 200 and leave it working
 * (REV-CLIENT-BOUND), and a token whose client the proxy did not see issued is not judged.
 */
function noteRevocation(ex: Observed, params: URLSearchParams, flows: Flows): void {
  const token = params.get('token');
  if (ex.status !== 200 || !token) return;
  const owner = flows.owners.get(digest(token), ex.at);
  if (!owner || owner !== clientOf(ex, params)) return;
  const death = { rule: 'REV-REVOKES-TOKEN', ended: endOf(ex) } as const;
  flows.deadAccess.set(digest(token), ex.at, death);
  flows.spentRefresh.set(digest(token), ex.at, death);
}

/** Where a 200 to a bearer token means the token worked: token info and the current user. */
const ORACLES = new Set([TOKEN_INFO_PATH, CURRENT_USER_PATH]);

/** The access token a request presents: the bearer header, or token info's access_token parameter. */
function bearerOf(ex: Observed, url: URL): string | undefined {
  const header = /^bearer\s+(\S+)$/i.exec(ex.requestHeaders.get('authorization') ?? '')?.[1];
  const query = url.pathname === TOKEN_INFO_PATH || url.pathname.startsWith(API_PREFIX);
  return header ?? (query ? (url.searchParams.get('access_token') ?? undefined) : undefined);
}

/** The REST API: a dead token there must get 401, whether the endpoint is private or public. */
const API_PREFIX = '/api/';

/**
 * A token that should be dead (rotated, revoked): accepted by token info or the current user, it
 * still works (the rule that ended it); answered 2xx elsewhere in the REST API, it was taken as a
 * token or as none, where it must get 401 (AUTH-INVALID-TOKEN-401, as scopes.revoked-token-401).
 * Only a request sent after the answer that ended it was complete: one in flight meanwhile may
 * have been served first, rightly with the token alive, and decides nothing (review 30).
 */
function judgeDeadToken(t: CheckContext, ex: Observed, path: string, bearer: string | undefined, flows: Flows): void {
  if (!bearer || ex.status >= 500) return;
  const death = flows.deadAccess.get(digest(bearer), ex.at);
  if (!death || !sentAfter(ex, death.ended)) return;
  const { rule } = death;
  if (ORACLES.has(path))
    t.soft(ex.status !== 200, `GET ${path}: accepted an access token that was rotated or revoked`, { rules: [rule] });
  else if (path.startsWith(API_PREFIX) && (ex.status === 401 || (ex.status >= 200 && ex.status < 300)))
    t.soft(ex.status === 401, `${ex.method} ${path}: a rotated or revoked token must get 401, got ${ex.status}`, {
      rules: ['AUTH-INVALID-TOKEN-401'],
    });
}

/**
 * An offset-paginated answer held to itself: x-page from 1, the x-* headers consistent with each
 * other, with the rows on the page and with the Link relations; Link well formed, no Links.
 * `followed`: the request was a Link the proxy forwarded, its parameters the server's own.
 */
function judgePage(t: CheckContext, ex: Observed, res: HttpResponse, followed: boolean): void {
  if (ex.method !== 'GET' || res.status !== 200 || res.headers.get('x-page') === null) return;
  const what = `GET ${new URL(res.url).pathname}`;
  const rule = (rules: RuleId[]) => ({ rules });
  t.soft(
    res.headers.get('links') === null,
    `${what}: carries the removed Links header`,
    rule(['PAG-LINKS-HEADER-REMOVED']),
  );
  // No Link at all is PAG-LINK-HEADER's failure alone: the relations are then compared with nothing.
  const link = res.headers.get('link');
  // Only the pagination relations, as the walks read them: a CDN's rel=preload is no page's.
  const links = link === null ? null : paginationOnly(parseLinkHeader(link));
  t.soft(links !== null, `${what}: a paginated answer without a well-formed Link header`, rule(['PAG-LINK-HEADER']));
  const page = numberHeader(res, 'x-page');
  const per = numberHeader(res, 'x-per-page');
  t.expect(page !== null && page >= 1, `${what}: x-page must count from 1`, rule(['PAG-X-PAGE-STARTS-AT-1']));
  t.expect(
    per !== null && per >= 1 && Number.isInteger(page),
    `${what}: x-page and x-per-page must be positive integers`,
    rule(['PAG-OFFSET-HEADERS']),
  );
  const expectHeaders = (ok: boolean, message: string) =>
    t.soft(ok, `${what}: ${message}`, rule(['PAG-OFFSET-HEADERS']));
  const asked = new URL(res.url).searchParams;
  // Without page, the first page (PAG-PAGE-DEFAULT); never more rows than the cap (PAG-PER-PAGE-MAX).
  if (!asked.has('page'))
    t.soft(page === 1, `${what}: asked without page, served page ${page}`, rule(['PAG-PAGE-DEFAULT']));
  const rows = ex.responseBody ? jsonValue(res) : undefined;
  const served = Math.max(per, Array.isArray(rows) ? rows.length : 0);
  const { perPageMax, paginationTotalsMax } = limits();
  if (Number(asked.get('per_page')) > perPageMax || served > perPageMax)
    t.soft(
      served <= perPageMax,
      `${what}: a page of ${served} rows where at most ${perPageMax} are served`,
      rule(['PAG-PER-PAGE-MAX', 'LIM-PER-PAGE']),
    );
  const next = numberHeader(res, 'x-next-page');
  const prev = numberHeader(res, 'x-prev-page');
  expectHeaders(Object.is(prev, page > 1 ? page - 1 : null), `x-prev-page does not follow x-page`);
  const total = numberHeader(res, 'x-total');
  // Totals above the limit are never sent (PAG-TOTALS-OMITTED): an x-total beyond it shows the count it should hide.
  if (total !== null && total > paginationTotalsMax)
    t.soft(
      false,
      `${what}: x-total ${total} is sent above the totals limit ${paginationTotalsMax}`,
      rule(['PAG-TOTALS-OMITTED']),
    );
  const totalPages = numberHeader(res, 'x-total-pages');
  if (total !== null && totalPages !== null) {
    expectHeaders(
      totalPages === Math.max(1, Math.ceil(total / per)),
      `x-total-pages does not follow x-total and x-per-page`,
    );
    expectHeaders(
      Object.is(next, page < totalPages ? page + 1 : null),
      `x-next-page does not follow x-page and x-total-pages`,
    );
    if (Array.isArray(rows) && page <= totalPages)
      expectHeaders(
        rows.length === Math.min(per, Math.max(0, total - (page - 1) * per)),
        `the page holds ${rows.length} rows where x-total, x-page and x-per-page say otherwise`,
      );
  }
  // Every relation keeps the parameters the client asked with (PAG-LINK-FOLLOW), as the walks
  // require of the links from their first page: not those of a page a link led to (a server may
  // add its own), nor a keyset request an endpoint answered with offset pages (it ignored it).
  if (links && !followed && !asked.has('pagination') && !KEYSET_PARAMS.some((p) => asked.has(p)))
    for (const target of Object.values(links).flat())
      if (target) expectKeepsParams(t, new URL(target, res.url).href, res.url, `${what}: a Link`);
  if (links) {
    const nextLinks = links.next ?? [];
    // Where a relation belongs is PAG-LINK-RELS' (a should), as the walks judge it; the numbers were judged above.
    const expectRels = (ok: boolean, message: string) => t.soft(ok, `${what}: ${message}`, rule(['PAG-LINK-RELS']));
    expectRels(nextLinks.length > 0 === (next !== null), `rel=next and x-next-page disagree`);
    expectRels((links.prev ?? []).length > 0 === (prev !== null), `rel=prev and x-prev-page disagree`);
    if (next !== null && nextLinks.length === 1) {
      const linked = new URL(nextLinks[0], res.url).searchParams.get('page');
      expectHeaders(linked === String(next), `rel=next leads to page ${linked}, x-next-page says ${next}`);
    }
  }
}

/**
 * A CORS preflight the browser sent to an endpoint with preflight, held to what it must allow
 * (suites/cors): success with the origin and method, the standard headers asked; any other header
 * asked must not be granted (judged only where the preflight was served: else it grants nothing).
 */
function judgePreflight(t: CheckContext, ex: Observed, res: HttpResponse, path: string): void {
  const from = ex.requestHeaders.get('origin');
  const method = ex.requestHeaders.get('access-control-request-method');
  if (!from || !method || !hasPreflight(path, method) || ex.status >= 500) return;
  const asked = (ex.requestHeaders.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  for (const header of asked.filter((h) => !isStandardHeader(h)))
    if (preflightServed(res, from)) expectNotGranted(t, res, path, header);
  expectPreflightAnswer(t, res, { path, method: method.toUpperCase(), from, asked });
}

/**
 * Pages as the client walks them: each page it was told of (a Link target forwarded, or the
 * request with the page an x-next-page or x-prev-page named) is remembered; a request for a page
 * past the first (or a cursor) of a listing that it was never told of was built by the client,
 * not followed: also the very first request of a walk, straight to page 2. A listing is a path
 * answered as a page (a Link or x-page), now or before: a page of another kind (the provider's
 * own web pages) is none.
 */
function notePage(ex: Observed, url: URL, res: HttpResponse, flows: Flows, client?: ClientSink): void {
  const collection = digest(url.pathname);
  const page = url.searchParams.get('page');
  const paging = (page !== null && page !== '1') || KEYSET_PARAMS.some((p) => url.searchParams.has(p));
  // Before this answer's own links are remembered (rel=last may name the request itself).
  const told = flows.linked.get(pageKey(url), ex.at);
  const link = res.status === 200 ? res.headers.get('link') : null;
  const links = link !== null ? parseLinkHeader(link) : null;
  const listing = res.status === 200 && (links !== null || res.headers.get('x-page') !== null);
  if (client && paging && !told && (listing || flows.collections.get(collection, ex.at)))
    client({ habit: 'builds-page-urls', where: `GET ${url.pathname}` });
  if (!listing) return;
  flows.collections.set(collection, ex.at, true);
  for (const targets of Object.values(links ?? {}))
    for (const target of targets ?? []) {
      try {
        for (const key of linkedKeys(new URL(target, url), flows.basePath)) flows.linked.set(key, ex.at, 'link');
      } catch {
        // A malformed Link target leads nowhere: PAG-LINK-HEADER judges the header.
      }
    }
  // A client may follow the page numbers instead (the source offers both): this URL at that page.
  // It stays the client's own request (its Link is judged against it), unless a Link named it too.
  for (const header of ['x-next-page', 'x-prev-page']) {
    const number = res.headers.get(header)?.trim();
    if (!number || !/^\d+$/.test(number)) continue;
    const next = new URL(url);
    next.searchParams.set('page', number);
    const key = pageKey(next);
    if (!flows.linked.get(key, ex.at)) flows.linked.set(key, ex.at, 'number');
  }
}

/**
 * A keyset page (asked with pagination=keyset where the support table offers it) carries no
 * offset header, and the empty page that ends the collection no Link: the keyset checks' own
 * assertions. An endpoint outside the table at this release may ignore the parameter and serve
 * offset pages.
 */
function judgeKeysetPage(ex: Observed, url: URL, res: HttpResponse, flows: Flows): Verdict[] {
  if (ex.method !== 'GET' || res.status !== 200 || url.searchParams.get('pagination') !== 'keyset') return [];
  const offer = keysetOffer(url, flows.release);
  if (!offer) return [];
  const what = `GET ${url.pathname} (keyset)`;
  // Offset pages (x-page) where the table offers keyset: the endpoint ignored the parameter, which
  // breaks its own row's rule, as the keyset checks say (not the headers of a keyset page).
  if (res.headers.get('x-page') !== null)
    return judgeWith((t) =>
      t.soft(false, `${what}: served offset pages where the keyset support table offers keyset pages`, {
        rules: offer.rules,
      }),
    );
  const rows = ex.responseBody ? jsonValue(res) : undefined;
  return [
    ...judgeWith((t) => expectNoOffsetHeaders(t, res, what)),
    ...(Array.isArray(rows) && rows.length === 0 ? judgeWith((t) => expectEmptyEnd(t, res, what)) : []),
  ];
}

/** Query parameters that ask for a keyset page: present only on a page a Link leads to. */
const KEYSET_PARAMS = ['cursor', 'id_after', 'page_token'];

/**
 * The exchange as its client reads it: a response body in a content coding (the client asked for
 * it with Accept-Encoding) undone, within the most a judged copy may expand to; one that cannot be
 * undone is judged on its headers only, as a body too long to keep is.
 */
function readable(ex: Observed): Observed {
  if (!ex.responseBody?.length) return ex;
  const decoded = decodeContent(ex.responseHeaders.get('content-encoding'), ex.responseBody, DEFAULT_MAX_BODY_BYTES);
  if (decoded.ok && decoded.body === ex.responseBody) return ex;
  return { ...ex, responseBody: decoded.ok ? decoded.body : undefined };
}

/** Endpoints that answer JSON whatever the client: an HTML page there is no answer of the provider's. */
const JSON_ENDPOINTS = [TOKEN_PATH, REVOKE_PATH, AUTHORIZE_DEVICE_PATH, TOKEN_INFO_PATH, USERINFO_PATH];

/**
 * A success answered with an HTML page where the provider answers JSON: a sign-in wall, a captive
 * portal or an SSO front in front of the target, not the provider (as `run` says at start-up, "not
 * an identity provider of this spec"). Not judged: no rule of the provider's is broken by it.
 */
export function pageInFront(observed: Observed): boolean {
  if (observed.status < 200 || observed.status >= 300) return false;
  if (!/^\s*text\/html\b/i.test(observed.responseHeaders.get('content-type') ?? '')) return false;
  let path: string;
  try {
    path = new URL(observed.target, 'http://proxy.invalid').pathname;
  } catch {
    return false;
  }
  return path.startsWith(API_PREFIX) || JSON_ENDPOINTS.includes(path);
}

/** The verdicts of one exchange; `flows` is updated with what it establishes, `client` told of the client's habits. */
export function judgeExchange(observed: Observed, flows: Flows, client?: ClientSink): Verdict[] {
  const ex = readable(observed);
  let url: URL;
  try {
    // Base only for parsing: the target as sent, never normalised for forwarding.
    url = new URL(ex.target, 'http://proxy.invalid');
  } catch {
    return [];
  }
  const body = ex.responseBody?.toString('utf8') ?? '';
  const res = observedResponse(url.href, ex.status, ex.responseHeaders, body);
  const path = url.pathname;
  noteClockMove(ex, path, flows);
  // The target declined to serve now (a 429, a 403 or 503 naming a wait): no answer to judge, as
  // `run` waits it out. A device poll's slow_down under 429 is the grant's own answer (http.ts).
  // The body is parsed for it only then, not for every exchange (a listing can be megabytes).
  const limited = isRateLimited(ex.status, ex.responseHeaders);
  const slowDown = limited && jsonObject(res)?.error === 'slow_down';
  const early = noteRetryAfter(ex, path, () => tokenParams(ex, url), flows, slowDown, client);
  if (limited && !slowDown) return [];
  if (ex.method === 'POST' && path === TOKEN_PATH) {
    const params = tokenParams(ex, url);
    const what = `POST ${TOKEN_PATH}`;
    // Each in its own judgement: a failed expect in one hides nothing the others prove.
    // A redirect is no token answer (the endpoint is elsewhere: the code flow's rules, as the run says).
    const answered = ex.status < 500 && (ex.status < 300 || ex.status >= 400);
    return [
      ...(answered ? judgeWith((t) => expectNoStore(t, res, what)) : []),
      // No body, no media type to judge (an empty refusal is the error body's failure alone).
      ...(answered && ex.responseBody?.length ? judgeWith((t) => expectExactJsonType(t, res, what)) : []),
      ...judgeWith((t) => judgeToken(t, ex, res, params)),
      // A poll sent inside a Retry-After was noted for that haste: not again as a fast poll (one cause).
      ...judgeWith((t) => judgeDevicePoll(t, ex, res, params, flows, early ? undefined : client)),
      ...judgeWith((t) => judgeGrantedScope(t, ex, res, params, flows)),
      ...judgeWith((t) => judgeTokenFlows(t, ex, res, params, flows, client)),
      ...(answered ? judgeWith((t) => judgeGrantOfDiscovery(t, res, params, flows)) : []),
    ];
  }
  if (ex.method === 'POST' && path === REVOKE_PATH) noteRevocation(ex, tokenParams(ex, url), flows);
  if (ex.method === 'POST' && path === AUTHORIZE_DEVICE_PATH && ex.status < 500)
    return judgeDeviceStart(ex, res, tokenParams(ex, url), flows);
  if (path === AUTHORIZE_PATH) {
    const params = tokenParams(ex, url);
    noteAuthorization(ex, res, params, flows, client);
    return [
      ...judgeWith((t) => judgeStateEcho(t, ex, res, params)),
      ...judgeWith((t) => judgeResponseTypeOfDiscovery(t, res, params, flows)),
    ];
  }
  if (ex.method === 'OPTIONS') return judgeWith((t) => judgePreflight(t, ex, res, path));
  const bearer = bearerOf(ex, url);
  // Before this answer's own links are noted (rel=first may name the request itself).
  const followed = flows.linked.get(pageKey(url), ex.at) === 'link';
  if (ex.method === 'GET') notePage(ex, url, res, flows, client);
  const shape = ex.status < 500 && ex.responseBody ? judgeWith((t) => judgeShape(t, ex.method, res)) : [];
  return [
    ...judgeWith((t) => judgeDeadToken(t, ex, path, bearer, flows)),
    ...(path === TOKEN_INFO_PATH && bearer ? judgeWith((t) => judgeInfoScope(t, ex, res, bearer, flows)) : []),
    ...(ex.method === 'GET' && path === TOKEN_INFO_PATH && ex.status === 200 && jsonObject(res)
      ? judgeWith((t) => expectInfoAliases(t, jsonObject(res)!))
      : []),
    ...judgeWith((t) => judgePage(t, ex, res, followed)),
    ...judgeKeysetPage(ex, url, res, flows),
    ...judgeKeysetWalk(ex, url, res, flows),
    ...shape,
    ...(ex.responseBody ? judgeWith((t) => judgeRemovedAttributes(t, ex.method, res)) : []),
    ...judgeWith((t) => judgeLegacyJwks(t, ex.method, res)),
    ...judgeDiscovery(
      ex,
      path,
      res,
      flows,
      shape.every((v) => v.ok),
    ),
  ];
}
