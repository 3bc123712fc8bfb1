/** GET /oauth/token/info: both presentations, the fields and their deprecated aliases, refusals. */
import fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { CONTROL_PREFIX } from '../drivers/simulator.js';
import {
  broke,
  CURRENT_USER_PATH,
  expectJsonType,
  expectOAuthError,
  jsonObject,
  mintPair,
  TOKEN_INFO_PATH,
  tokenInfo,
} from '../shared/oauth.js';
import { restRefusesTokens } from '../shared/rest-tokens.js';

const CONTROL_TOKENS_PATH = `${CONTROL_PREFIX}/tokens`;

export interface Info {
  resource_owner_id?: unknown;
  scope?: unknown;
  expires_in?: unknown;
  application?: { uid?: unknown } | null;
  created_at?: unknown;
  scopes?: unknown;
  expires_in_seconds?: unknown;
}

/** The deprecated aliases, each equal to its field (judged apart: one missing hides nothing). */
export function expectInfoAliases(t: CheckContext, info: Info): void {
  t.soft(
    'scopes' in info && JSON.stringify(info.scopes) === JSON.stringify(info.scope),
    'scopes must equal scope',
    broke(['INFO-ALIAS-SCOPES'], { scope: info.scope ?? null, scopes: info.scopes ?? null }),
  );
  t.soft(
    'expires_in_seconds' in info && info.expires_in_seconds === info.expires_in,
    'expires_in_seconds must equal expires_in',
    broke(['INFO-ALIAS-EXPIRES-IN-SECONDS'], {
      expiresIn: info.expires_in ?? null,
      expiresInSeconds: info.expires_in_seconds ?? null,
    }),
  );
}

/** A 200 token information response; refusing a live token breaks INFO-TOKEN-PRESENTATION, a non-JSON answer INFO-RESPONSE-FIELDS. */
function expectInfo(t: CheckContext, res: HttpResponse, what: string): Info {
  const body = jsonObject(res) as Info | undefined;
  t.expect(
    res.status === 200 && body,
    `${what}: expected 200 with the token information response`,
    // A 200 that is no JSON object (a web app's page) says what it was.
    broke(['INFO-TOKEN-PRESENTATION'], {
      status: res.status,
      ...(res.status === 200 ? { contentType: res.headers.get('content-type') ?? null } : {}),
    }),
  );
  expectJsonType(t, res, what, ['INFO-RESPONSE-FIELDS']);
  return body;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isIntOrNull = (v: unknown) => v === null || Number.isInteger(v);

/**
 * Whole seconds a live clock may tick between two readings the harness took within `ms` (from
 * sending the first request to the second's answer): at least one, as a second may turn at once,
 * and more on a slow target or a loaded machine.
 */
const ticksWithin = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Seconds may tick between two requests on a live clock (`ticks` at most): compare everything else exactly. */
function sameInfo(a: Info, b: Info, ticks: number): boolean {
  const strip = ({ expires_in: _e, expires_in_seconds: _s, ...rest }: Info) => JSON.stringify(rest);
  const close = (x: unknown, y: unknown) =>
    x === y || (typeof x === 'number' && typeof y === 'number' && Math.abs(x - y) <= ticks);
  return strip(a) === strip(b) && close(a.expires_in, b.expires_in);
}

/**
 * An access token without expiry, as tokens created before expiry became mandatory are: minted by
 * the simulator control API (no grant issues one any more), else the configured personal access
 * token, which a provider may or may not accept on token info.
 */
async function tokenWithoutExpiry(t: CheckContext): Promise<string> {
  if (!t.caps.control) {
    if (!t.config.personalAccessToken)
      t.skip('needs the simulator control API or a personal access token for a token without expiry');
    return t.config.personalAccessToken;
  }
  const { scopes } = t.oauth.app('confidential');
  const res = await t.http.post(CONTROL_TOKENS_PATH, { json: { scopes, expiresIn: null } });
  const token = jsonObject(res)?.access_token;
  t.expect(res.status === 201 && typeof token === 'string', 'the control API did not mint a token without expiry', {
    status: res.status,
  });
  t.oauth.track(token, 'confidential');
  return token;
}

/** Header-safe token look-alikes and arbitrary query values that no provider issued. */
const bogusToken = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/);

export const infoChecks: Check[] = [
  {
    id: 'tokens.info-presentations',
    suite: 'tokens',
    title: 'Token info answers the same fields for the token as access_token query parameter and as Bearer header',
    rules: ['INFO-TOKEN-PRESENTATION', 'INFO-RESPONSE-FIELDS'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const since = Date.now();
      const byHeader = expectInfo(
        t,
        await tokenInfo(t, tokens.access_token, 'header'),
        'token info with Authorization: Bearer',
      );
      const byQuery = expectInfo(t, await tokenInfo(t, tokens.access_token, 'query'), 'token info with ?access_token=');
      t.expect(
        sameInfo(byHeader, byQuery, ticksWithin(Date.now() - since)),
        'token info must answer the same for both presentations',
        broke(['INFO-TOKEN-PRESENTATION'], { header: Object.keys(byHeader), query: Object.keys(byQuery) }),
      );
      const lifetime = limits().accessTokenLifetime;
      const fields = (details: Record<string, unknown>) => broke(['INFO-RESPONSE-FIELDS'], details);
      t.expect(
        Number.isInteger(byHeader.resource_owner_id),
        'resource_owner_id must be an integer',
        fields({ type: typeof byHeader.resource_owner_id }),
      );
      t.expect(
        isStringArray(byHeader.scope),
        'scope must be an array of strings',
        fields({ scope: byHeader.scope ?? null }),
      );
      t.expect(
        isIntOrNull(byHeader.expires_in),
        'expires_in must be an integer or null',
        fields({ expiresIn: byHeader.expires_in ?? null }),
      );
      t.expect(
        byHeader.expires_in === null ||
          ((byHeader.expires_in as number) > 0 && (byHeader.expires_in as number) <= lifetime),
        `expires_in of a fresh token must be the seconds left, at most ${lifetime}`,
        fields({ expiresIn: byHeader.expires_in }),
      );
      t.expect(
        byHeader.application?.uid === t.oauth.app('confidential').clientId,
        'application.uid must be the Application ID of the client',
        fields({ uidType: typeof byHeader.application?.uid }),
      );
      t.expect(
        Number.isInteger(byHeader.created_at),
        'created_at must be an integer Unix timestamp',
        fields({ createdAt: byHeader.created_at ?? null }),
      );
      // No REST API (Keycloak, Okta, Auth0; reported once, versioning.api-prefix) names no user to compare.
      if (!t.caps.restApi) return;
      const user = await t.http.get(CURRENT_USER_PATH, { bearer: tokens.access_token });
      // A REST API closed to OAuth tokens names none either (reported once: rest-tokens.ts).
      if (user.status !== 200 && (await restRefusesTokens(t)) !== undefined) return;
      const userId = (jsonObject(user) as { id?: unknown } | undefined)?.id;
      t.expect(
        userId === byHeader.resource_owner_id,
        'resource_owner_id must be the id of the user the token acts for',
        fields({ resourceOwnerId: byHeader.resource_owner_id, userId }),
      );
    },
  },
  {
    id: 'tokens.info-deprecated-aliases',
    suite: 'tokens',
    needs: ['tokenInfo'],
    title: 'Token info carries scopes equal to scope and expires_in_seconds equal to expires_in',
    rules: ['INFO-ALIAS-SCOPES', 'INFO-ALIAS-EXPIRES-IN-SECONDS'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      for (const via of ['header', 'query'] as const) {
        const info = expectInfo(t, await tokenInfo(t, tokens.access_token, via), `token info (${via})`);
        expectInfoAliases(t, info);
      }
    },
  },
  {
    id: 'tokens.info-expires-in-remaining',
    suite: 'tokens',
    title: 'expires_in counts down the seconds left as time passes',
    rules: ['INFO-EXPIRES-IN-REMAINING'],
    needs: ['clock', 'tokenInfo'],
    async run(t: CheckContext) {
      const { tokens } = await mintPair(t, 'confidential');
      const since = Date.now();
      const before = expectInfo(t, await tokenInfo(t, tokens.access_token), 'token info of a fresh token')
        .expires_in as number;
      const step = Math.floor(limits().accessTokenLifetime / 4);
      await t.driver.advanceClock(step);
      const after = expectInfo(t, await tokenInfo(t, tokens.access_token), `token info ${step} s later`)
        .expires_in as number;
      t.expect(
        Number.isInteger(before) && Number.isInteger(after),
        'expires_in must be an integer for an expiring token',
        { before, after },
      );
      const drop = before - after;
      // The real seconds between the two readings count too (a slow target, a loaded machine).
      const ticks = ticksWithin(Date.now() - since);
      t.expect(drop >= step && drop <= step + ticks, `expires_in must fall by ${step} when ${step} seconds pass`, {
        before,
        after,
        ...(ticks > 1 ? { realSecondsBetween: ticks } : {}),
      });
    },
  },
  {
    id: 'tokens.info-expires-in-null',
    suite: 'tokens',
    needs: ['tokenInfo'],
    title: 'For a token without expiry, expires_in and expires_in_seconds are null',
    rules: ['INFO-EXPIRES-IN-NULL'],
    async run(t: CheckContext) {
      const token = await tokenWithoutExpiry(t);
      const res = await tokenInfo(t, token);
      if (!t.caps.control && res.status === 401)
        t.skip(
          'token info does not accept the personal access token, and without the control API the harness has no other token without expiry',
        );
      const info = expectInfo(t, res, 'token info of a token without expiry');
      // The alias is judged only when sent: its absence is INFO-ALIAS-EXPIRES-IN-SECONDS's to fail.
      const aliasSent = 'expires_in_seconds' in info;
      t.expect(
        info.expires_in === null && (!aliasSent || info.expires_in_seconds === null),
        `expires_in${aliasSent ? ' and expires_in_seconds' : ''} must be null for a token without expiry`,
        {
          expiresIn: info.expires_in ?? 'absent',
          expiresInSeconds: aliasSent ? info.expires_in_seconds : 'absent',
        },
      );
    },
  },
  {
    id: 'tokens.info-invalid-token',
    suite: 'tokens',
    needs: ['tokenInfo'],
    title: 'Token info without a token or with one never issued answers 401 invalid_token',
    rules: ['INFO-INVALID-TOKEN', 'ERR-OAUTH-BODY'],
    async run(t: CheckContext) {
      const refusal = { status: 401, error: 'invalid_token', rules: ['INFO-INVALID-TOKEN'] as RuleId[], bodyRules: [] };
      const bare = await t.http.get(TOKEN_INFO_PATH);
      // A missing endpoint is one failure of its rule, not a malformed body and a wrong media type besides.
      t.expect(
        bare.status !== 404,
        `${TOKEN_INFO_PATH} answers 404: the endpoint the source names is missing`,
        broke(['INFO-INVALID-TOKEN'], { status: bare.status }),
      );
      expectOAuthError(t, bare, refusal, 'token info without a token');
      await t.property(bogusToken, fc.constantFrom<'header' | 'query'>('header', 'query'), async (token, via) => {
        expectOAuthError(t, await tokenInfo(t, token, via), refusal, `token info with a token never issued (${via})`);
      });
    },
  },
];
