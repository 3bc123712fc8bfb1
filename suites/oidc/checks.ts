/** OpenID Connect: id_token signature and claims, discovery, key set, userinfo, the /-/jwks alias. */
import fc from 'fast-check';
import { decodeProtectedHeader, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import type { RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse, TokenResponse } from '../types.js';
import { CheckFailure, HarnessError, OversizedAnswer } from '../runner/errors.js';
import { namedState } from '../runner/state.js';
import { hasBearerChallenge, namesError } from '../shared/challenge.js';
import {
  authorizeCode,
  broke,
  DEVICE_GRANT,
  DISCOVERY_ENDPOINTS,
  atSourcePath,
  exchangeCode,
  expectJsonType,
  getDiscovery,
  jsonObject,
  mediaTypeOf,
} from '../shared/oauth.js';
import {
  DISCOVERY_PATH,
  expectedIssuer,
  fetchJwks,
  KEYS_PATH,
  LEGACY_JWKS_PATH,
  judgeKeySet,
  isOwnKeyFailure,
  judgeUnjudged,
  localKeys,
  unusableKey,
  openidApp,
  sameIssuer,
  scopeWithoutOpenid,
  SECRET_MEMBERS,
  USERINFO_PATH,
} from './support.js';
import { mayHaveSigned, verifyJwt } from './verify-jwt.js';
import { expectUserinfoServes } from '../shared/userinfo-premise.js';
import {
  judgeDiscoveryLists,
  judgeGrantListed,
  judgeResponseTypeListed,
  judgeRs256Listed,
  listedIn,
} from './discovery-lists.js';
import { reportedBy } from '../runner/reported-by.js';

/** The asymmetric JWS algorithms (RFC 7518 §3.1, RFC 8037 §3.1): a key that names one signs. */
const SIGNING_ALG = /^(RS|PS|ES)(256|384|512)$|^ES256K$|^EdDSA$|^Ed(25519|448)$/;

/** A public key of a type JWS signs with, its members present (RFC 7518 §6.2, §6.3, RFC 8037 §2). */
function isPublicKey(key: JWK): boolean {
  const has = (...members: Array<keyof JWK>) => members.every((m) => typeof key[m] === 'string');
  if (key.kty === 'RSA') return has('n', 'e');
  if (key.kty === 'EC') return has('crv', 'x', 'y');
  return key.kty === 'OKP' && has('crv', 'x');
}

/**
 * Seconds of clock skew allowed between the provider and the harness's machine when exp and nbf
 * are checked (RFC 7519 §4.1.4-4.1.5: a small leeway, usually no more than a few minutes): whose
 * clock runs ahead is the hosts' affair, not the provider's conformance.
 */
const CLOCK_SKEW = 300;

/** 2000-01-01T00:00:00Z: no sign-in at this provider happened before. */
const EARLIEST_AUTH_TIME = 946_684_800;

/** Any nonce the client may choose: it travels through the authorize URL and the consent form into the id_token. */
const nonceArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });

/** jose errors about the claims (iss, aud, exp, nbf...) break the claims rule; any other verification error the signature rule. */
const CLAIM_ERRORS = ['ERR_JWT_CLAIM_VALIDATION_FAILED', 'ERR_JWT_EXPIRED'];

/**
 * Verify an id_token against the served key set: its claims and alg on success, a failure naming
 * the rule it breaks otherwise. Which algorithm signed it (RS256, a should) is oidc.id-token's own.
 */
async function verifyIdToken(
  t: CheckContext,
  idToken: string,
  audience: string,
  issuer: string,
  self: string,
): Promise<{ claims: JWTPayload; alg: unknown }> {
  let header;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    return t.fail('id_token is not a JWS compact serialization', broke(['OIDC-ID-TOKEN']));
  }
  // A symmetric signature (HS256 with the client secret, OIDC Core §10.1, as Auth0 can) or none at
  // all: no public key verifies it, whatever the key set holds (L113: the keys for token verification).
  t.expect(
    typeof header.alg === 'string' && SIGNING_ALG.test(header.alg),
    `id_token is signed with ${header.alg ?? 'no alg'}, which no public key at ${KEYS_PATH} can verify (L113: the keys for token verification)`,
    broke(['OIDC-ID-TOKEN-SIGNATURE'], { alg: header.alg ?? null }),
  );
  const jwks = await keySetPremise(t, () => fetchJwks(t));
  // kid is optional (RFC 7515 §4.1.4); without one, the key set must leave no choice (OIDC Core §10.1).
  t.expect(
    header.kid === undefined ? jwks.keys.length === 1 : jwks.keys.some((k) => k.kid === header.kid),
    header.kid === undefined
      ? `id_token names no kid while ${KEYS_PATH} publishes ${jwks.keys.length} keys`
      : `id_token names a kid that ${KEYS_PATH} does not publish`,
    broke(['OIDC-ID-TOKEN-SIGNATURE'], { kid: header.kid ?? null, keys: jwks.keys.length }),
  );
  const { keys, candidates } = await verifyingKeys(t, jwks, header, self);
  try {
    // Any asymmetric algorithm of the published keys proves the signature (must); RS256 is the default (should).
    const { payload } = await verifyJwt(idToken, jwks, keys, { issuer, audience, clockTolerance: CLOCK_SKEW });
    return { claims: payload, alg: header.alg };
  } catch (error) {
    // The harness's own trouble (keys its bound left untried) is no verdict on the signature.
    if (error instanceof CheckFailure || error instanceof HarnessError) throw error;
    if (unusableKey(error))
      return unusable(
        t,
        `the key the id_token names cannot be used to verify it (${header.alg ?? 'no alg'})`,
        error,
        candidates,
      );
    const code = (error as { code?: string }).code;
    return t.fail(
      'id_token does not verify against the published keys, issuer and audience',
      broke([code && CLAIM_ERRORS.includes(code) ? 'OIDC-ID-TOKEN-CLAIMS' : 'OIDC-ID-TOKEN-SIGNATURE'], {
        reason: (error as Error).message,
        code,
      }),
    );
  }
}

/** The check of this suite whose own rule `rule` is: the one that reports its failure. */
const ownerOf = (rule: RuleId) => oidcChecks.find((c) => c.rules.includes(rule))?.id ?? 'oidc.id-token';

/** The running check untested: its premise failed on `rule`, which `owner` (else the rule's owner) reports once. */
const untested = (t: CheckContext, why: string, rule: RuleId, owner = ownerOf(rule)): never =>
  t.skip(`${why} ${reportedBy(t, owner, rule)}`);

/**
 * `work`, the premise of the running check: its failure, on another check's rule (or `rule`),
 * leaves this check untested, naming that check (untested), or `owner` where the check that
 * fails it is not the rule's (oidc.id-token, whose verification finds what oidc.jwks does not
 * judge). An answer past the harness's limits is the session's to say once (OversizedAnswer).
 */
async function asPremise<T>(t: CheckContext, rule: RuleId, work: () => T | Promise<T>, owner?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CheckFailure) || error instanceof OversizedAnswer || isOwnKeyFailure(error)) throw error;
    const broken = error.rules?.[0] ?? rule;
    return untested(t, error.message, broken, owner ?? ownerOf(broken));
  }
}

/**
 * The key set read, or the keys a token may be verified with judged, as the premise of a check
 * that verifies a token: a set it cannot read, or a bad key among those the token names, is
 * oidc.jwks's failure (OIDC-JWKS), said there once (review 29: it failed oidc.id-token too).
 */
const keySetPremise = <T>(t: CheckContext, work: () => T | Promise<T>) => asPremise(t, 'OIDC-JWKS', work);

/**
 * jose's keys for a token with this protected header: those that may have signed it, judged. What
 * oidc.jwks judges of them is the premise (keySetPremise); what it leaves unjudged (past its
 * budget) fails OIDC-JWKS here, in the check whose token names it (`self`), unless another check
 * of the run failed it first: skipped "reported by oidc.jwks", which had passed, it was reported by
 * nobody.
 */
async function verifyingKeys(
  t: CheckContext,
  jwks: JSONWebKeySet,
  header: { alg?: unknown; kid?: unknown },
  self: string,
) {
  const candidates = mayHaveSigned(jwks, header);
  const keys = await keySetPremise(t, () => localKeys(t, jwks, candidates));
  judgeUnjudged(t, jwks, candidates, self);
  return { keys, candidates };
}

/**
 * The keys a token may be verified with refused by jose or Node (unusableKey). A key that is no
 * public key (an RSA key without n, an EC key without y) fails oidc.jwks, which says it: this
 * check is untested. Any other refusal oidc.jwks, which passed the keys, does not say (what it
 * judges unsound never reaches verification: the premise fails first): the check whose token
 * names the key fails OIDC-JWKS, rather than be skipped naming a check that passed.
 */
function unusable(t: CheckContext, why: string, error: unknown, candidates: readonly JWK[]): never {
  const reason = (error as Error).message;
  if (candidates.some((key) => !isPublicKey(key))) return untested(t, `${why} (${reason})`, 'OIDC-JWKS');
  return t.fail(why, broke(['OIDC-JWKS'], { reason }));
}

/**
 * The sub of an openid code response's id_token, verified as oidc.id-token verifies it: the premise
 * of a check that compares with it, not its subject. No id_token, one that does not verify, no sub,
 * or a key set that cannot be read is the failure of the check that owns the rule it breaks
 * (oidc.id-token, oidc.jwks), said there once; this check is skipped naming it (review 29: a bad
 * signature failed oidc.userinfo too, and OIDC-USERINFO with it).
 */
async function idTokenSub(t: CheckContext, tokens: TokenResponse, audience: string): Promise<string> {
  if (typeof tokens.id_token !== 'string')
    return untested(t, 'a code grant with scope openid returned no id_token', 'OIDC-ID-TOKEN');
  const idToken = tokens.id_token;
  const issuer = await expectedIssuer(t);
  // What it fails, oidc.id-token fails too, verifying the same application's id_token; not a key
  // oidc.jwks leaves unjudged, which this token may name and oidc.id-token's not (a provider may
  // sign each token with another key): judgeUnjudged fails it here unless a check failed it first.
  const { claims } = await asPremise(
    t,
    'OIDC-ID-TOKEN',
    () => verifyIdToken(t, idToken, audience, issuer, 'oidc.userinfo'),
    'oidc.id-token',
  );
  if (typeof claims.sub !== 'string' || claims.sub.length === 0)
    return untested(t, 'the id_token carries no sub', 'OIDC-ID-TOKEN-CLAIMS');
  return claims.sub;
}

/**
 * Where the alias's key set first differs: the counts and the kids at the first key that is not
 * the same. Before, the kid of every key of both sets: two arrays of millions for a flood (review
 * 12), whose first kids said nothing of a difference further on.
 */
function firstDifference(current: JSONWebKeySet, legacy: JSONWebKeySet): Record<string, unknown> {
  const counts = { keys: current.keys.length, legacyKeys: legacy.keys.length };
  const longest = Math.max(current.keys.length, legacy.keys.length);
  for (let at = 0; at < longest; at++) {
    const [key, old] = [current.keys[at], legacy.keys[at]];
    if (JSON.stringify(key) !== JSON.stringify(old))
      return { ...counts, at, kid: key?.kid ?? null, legacyKid: old?.kid ?? null };
  }
  return counts; // the same keys: another member differs
}

/** An answer labelled application/jwt (OIDC Core §5.3.2: a userinfo response the client registered signed). */
const isJwt = (res: HttpResponse) => mediaTypeOf(res) === 'application/jwt';

/**
 * The claims of a signed userinfo response (OIDC Core §5.3.2): a JWT verified by the published
 * keys, whose iss and aud, which it SHOULD carry, name the issuer and the client when present. The
 * config cannot say whether the client registered userinfo_signed_response_alg, so a signed
 * answer is read as the provider's choice, not refused.
 */
async function signedUserinfo(
  t: CheckContext,
  res: HttpResponse,
  what: string,
  clientId: string,
): Promise<Record<string, unknown> | undefined> {
  if (res.status !== 200) return undefined;
  let header: { alg?: unknown; kid?: unknown } = {};
  try {
    header = decodeProtectedHeader(res.text.trim());
  } catch {
    // not a JWS: verifyJwt below says so
  }
  const jwks = await keySetPremise(t, () => fetchJwks(t));
  const { keys, candidates } = await verifyingKeys(t, jwks, header, 'oidc.userinfo');
  let payload: JWTPayload;
  try {
    ({ payload } = await verifyJwt(res.text.trim(), jwks, keys, { clockTolerance: CLOCK_SKEW }));
  } catch (error) {
    if (error instanceof CheckFailure || error instanceof HarnessError) throw error;
    if (unusableKey(error))
      return unusable(
        t,
        `${what}: the key the application/jwt answer names cannot be used to verify it`,
        error,
        candidates,
      );
    return t.fail(`${what}: the application/jwt answer does not verify against the published keys`, {
      reason: (error as Error).message,
    });
  }
  const issuer = await expectedIssuer(t);
  t.expect(payload.iss === undefined || payload.iss === issuer, `${what}: the signed claims name another issuer`, {
    iss: payload.iss,
    issuer,
  });
  const aud = ([] as unknown[]).concat(payload.aud ?? clientId);
  t.expect(aud.includes(clientId), `${what}: the signed claims are for another audience`, { aud: payload.aud });
  return payload;
}

/** Grant types a provider of the source may support (L8-12, L145), probed whether listed or not. */
const KNOWN_GRANTS = ['authorization_code', 'refresh_token', 'password', DEVICE_GRANT];

/**
 * The supported response and grant types the document lists are those the endpoints serve (OIDC
 * Discovery §3): a listed response type that /oauth/authorize refuses as unsupported, a listed
 * grant type that /oauth/token refuses as unsupported, or a grant type it serves left out of the
 * list disagree with the provider. `implicit` names response_type=token, not a token request.
 */
async function expectListsTruthful(t: CheckContext, doc: Record<string, unknown>): Promise<void> {
  // Probed with a configured application; without one there is nothing to ask with.
  const app = (['confidential', 'public'] as const).find((r) => t.config.applications?.[r]);
  if (!app) return;
  const openid = t.oauth.app(app).scopes.includes('openid');
  for (const responseType of listedIn(doc, 'response_types_supported').filter((r) => r !== 'code')) {
    const url = t.oauth.authorizeUrl(app, {
      response_type: responseType,
      ...(openid ? { scope: 'openid', nonce: 'discovery' } : {}),
    });
    const { redirect } = await t.driver.authorize(url, 'approve', { refusable: true });
    judgeResponseTypeListed(t, responseType, redirect);
  }
  if (!Array.isArray(doc.grant_types_supported)) return;
  const listed = listedIn(doc, 'grant_types_supported');
  for (const grant of [...new Set([...listed.filter((g) => g !== 'implicit'), ...KNOWN_GRANTS])]) {
    // Nothing but the grant type and the client: a served grant answers another error than unsupported_grant_type.
    // The client authenticates as the provider takes it (tokenRequest, which tracks what comes back).
    const res = await t.oauth.tokenRequest({ grant_type: grant }, { app });
    judgeGrantListed(t, grant, jsonObject(res)?.error !== 'unsupported_grant_type', listed, res.status);
  }
}

export const oidcChecks: Check[] = [
  {
    id: 'oidc.id-token',
    suite: 'oidc',
    title:
      'The id_token is an RS256 JWT verified by /oauth/discovery/keys, with iss, sub, aud, exp, iat, auth_time and the nonce sent',
    rules: ['OIDC-ID-TOKEN', 'OIDC-ID-TOKEN-CLAIMS', 'OIDC-ID-TOKEN-SIGNATURE', 'OIDC-ID-TOKEN-RS256'],
    needs: ['oidc'],
    async run(t: CheckContext) {
      const app = openidApp(t);
      const audience = t.config.applications![app]!.clientId;
      const issuer = await expectedIssuer(t);
      await t.property(nonceArb, async (nonce) => {
        const tokens = await t.oauth.token(app, { scope: 'openid', nonce });
        t.expect(
          typeof tokens.id_token === 'string',
          'a code grant with scope openid must return an id_token',
          broke(['OIDC-ID-TOKEN'], { fields: Object.keys(tokens) }),
        );
        const { claims, alg } = await verifyIdToken(t, tokens.id_token, audience, issuer, 'oidc.id-token');
        t.soft(
          alg === 'RS256',
          'id_token should be signed with RS256, the default algorithm (OIDC Core §3.1.3.7)',
          broke(['OIDC-ID-TOKEN-RS256'], { alg: alg ?? null }),
        );
        const claim = (details: Record<string, unknown>) => broke(['OIDC-ID-TOKEN-CLAIMS'], details);
        t.expect(
          typeof claims.sub === 'string' && claims.sub.length > 0,
          'id_token sub must be a non-empty string',
          claim({ sub: claims.sub ?? null }),
        );
        // auth_time is required only when max_age or the claim was requested (OpenID Connect Core §2): judged when present.
        for (const name of ['exp', 'iat', ...(claims.auth_time === undefined ? [] : ['auth_time' as const])] as const) {
          t.soft(
            Number.isInteger(claims[name]),
            `id_token ${name} must be an integer`,
            claim({ [name]: claims[name] ?? null }),
          );
        }
        t.expect(
          (claims.exp as number) > (claims.iat as number),
          'id_token exp must come after iat',
          claim({ exp: claims.exp, iat: claims.iat }),
        );
        t.soft(
          claims.auth_time === undefined || (claims.auth_time as number) <= (claims.iat as number),
          'id_token auth_time cannot be later than iat',
          claim({ authTime: claims.auth_time, iat: claims.iat }),
        );
        // The time the user authenticated (OIDC Core §2): 0, or any time before this century, is none.
        t.soft(
          claims.auth_time === undefined || (claims.auth_time as number) > EARLIEST_AUTH_TIME,
          'id_token auth_time must be the time the user authenticated, not the epoch or near it',
          claim({ authTime: claims.auth_time }),
        );
        t.expect(
          claims.nonce === nonce,
          'id_token must echo the nonce of the authorize request',
          claim({ sent: nonce, nonce: claims.nonce ?? null }),
        );
      });
    },
  },
  {
    id: 'oidc.openid-scope-only',
    suite: 'oidc',
    title: 'A grant without the openid scope carries no id_token',
    rules: ['OIDC-OPENID-SCOPE'],
    needs: ['oidc'],
    async run(t: CheckContext) {
      const app = openidApp(t);
      const tokens = await t.oauth.token(app, { scope: scopeWithoutOpenid(t, app) });
      t.expect(!('id_token' in tokens), 'a grant without openid must not return an id_token', {
        fields: Object.keys(tokens),
      });
    },
  },
  {
    id: 'oidc.openid-not-enabled',
    suite: 'oidc',
    title:
      'An application without the openid scope gets no OpenID Connect: asking for openid yields no id_token and no userinfo',
    rules: ['OIDC-OPENID-SCOPE'],
    async run(t: CheckContext) {
      const app = t.oauth.app('limited');
      if (app.scopes.includes('openid')) t.skip('the limited application holds openid; it must be one without');
      const scope = ['openid', ...app.scopes].join(' ');
      const what = `authorize for "${scope}" by an application without openid`;
      const { redirect, response } = await t.driver.authorize(
        t.oauth.authorizeUrl('limited', { scope, state: namedState('no-openid') }),
        'approve',
        { refusable: true },
      );
      const code = redirect?.searchParams.get('code');
      // Refusing the request (a page or an error redirect) is conformant: no code, no OpenID Connect.
      // It counts only where the same application, asked without openid, gets its code.
      if (!code) {
        await authorizeCode(t, 'limited', { scope: app.scopes.join(' ') }, ['GRANT-CODE-FLOW']);
        t.expect(!redirect?.searchParams.has('code'), `${what}: refused, no code`, { status: response.status });
        return;
      }
      const res = await exchangeCode(t, 'limited', code);
      const tokens = jsonObject(res);
      if (res.status !== 200 || typeof tokens?.access_token !== 'string') {
        t.expect(res.status !== 200, `${what}: the code exchange was refused`, { status: res.status });
        return;
      }
      t.expect(!('id_token' in tokens), `${what}: the token response carries an id_token`, {
        fields: Object.keys(tokens),
      });
      const userinfo = await t.http.get(USERINFO_PATH, { bearer: tokens.access_token });
      t.expect(userinfo.status !== 200, `${what}: ${USERINFO_PATH} answered 200 for its token`, {
        status: userinfo.status,
      });
    },
  },
  {
    id: 'oidc.discovery',
    suite: 'oidc',
    title: 'The discovery document names the issuer, the endpoints, jwks_uri and what is supported',
    rules: ['OIDC-DISCOVERY'],
    async run(t: CheckContext) {
      const res = await getDiscovery(t.http, t.config.issuer);
      const doc = jsonObject(res);
      t.expect(res.status === 200 && doc, `GET ${DISCOVERY_PATH} must answer 200 with a JSON object`, {
        status: res.status,
      });
      expectJsonType(t, res, `GET ${DISCOVERY_PATH}`);
      const issuer = typeof doc.issuer === 'string' ? doc.issuer : '';
      t.expect(
        issuer && (!t.config.issuer || sameIssuer(issuer, t.config.issuer)),
        'issuer must be the configured issuer',
        { issuer: doc.issuer ?? null },
      );
      for (const [field, path] of Object.entries(DISCOVERY_ENDPOINTS)) {
        const value = doc[field];
        let url: URL | undefined;
        try {
          url = typeof value === 'string' ? new URL(value) : undefined;
        } catch {
          url = undefined;
        }
        t.expect(
          url && atSourcePath(url, [t.http.baseUrl, ...(t.config.issuer ? [t.config.issuer] : [])], path),
          `${field} must be the absolute URL of ${path}`,
          {
            [field]: value ?? null,
          },
        );
        // The harness would send tokens and secrets there: it must be the provider's own origin.
        const away = t.http.leaves(url.href);
        t.expect(!away, `${field} ${away}`, { [field]: value });
      }
      // Optional (RFC 8628 §4), but where named the harness would send the client there too.
      const device = doc.device_authorization_endpoint;
      const deviceAway = typeof device === 'string' && URL.canParse(device) ? t.http.leaves(device) : undefined;
      t.expect(!deviceAway, `device_authorization_endpoint ${deviceAway}`, { device_authorization_endpoint: device });
      judgeDiscoveryLists(t, doc);
      await expectListsTruthful(t, doc);
    },
  },
  {
    // Its own check: oidc.discovery's assertions speak for OIDC-DISCOVERY alone, and a missing or
    // malformed document is its verdict (the premise here, said there once).
    id: 'oidc.discovery-rs256',
    suite: 'oidc',
    title: "The discovery document's id_token_signing_alg_values_supported includes RS256",
    rules: ['OIDC-DISCOVERY-RS256'],
    async run(t: CheckContext) {
      const res = await getDiscovery(t.http, t.config.issuer);
      const algs = res.status === 200 ? jsonObject(res)?.id_token_signing_alg_values_supported : undefined;
      if (!Array.isArray(algs))
        t.skip(
          `GET ${DISCOVERY_PATH} gave no id_token_signing_alg_values_supported list (status ${res.status}): oidc.discovery judges the document (OIDC-DISCOVERY)`,
        );
      judgeRs256Listed(t, algs);
    },
  },
  {
    id: 'oidc.jwks',
    suite: 'oidc',
    title: '/oauth/discovery/keys is a JSON Web Key Set of public keys, signing keys among them, without private parts',
    rules: ['OIDC-JWKS'],
    async run(t: CheckContext) {
      const jwks = await fetchJwks(t, { owner: true });
      t.expect(jwks.keys.length > 0, `${KEYS_PATH} must publish at least one key`);
      // The set MAY also hold encryption keys; then every key says its use (OIDC Discovery §3, jwks_uri).
      const mixed = jwks.keys.some((k) => k.use === 'enc');
      // A key's details are made only for a failure (t.expect ends the check there): a passing
      // key needs none, and a set of millions of keys made millions of them (review 12).
      const expectKey = (ok: boolean, message: string, details: () => Record<string, unknown>) =>
        t.expect(ok, message, ok ? undefined : details());
      for (const key of jwks.keys) {
        const leaks = SECRET_MEMBERS.some((m) => m in key);
        expectKey(!leaks, `${KEYS_PATH} publishes private key members`, () => ({
          kid: key.kid ?? null,
          members: SECRET_MEMBERS.filter((m) => m in key),
        }));
        // Any asymmetric key type (RFC 7518 §6): the source shows no shape (L178), and a set may hold
        // EC keys beside RSA ones (Keycloak's ES256 realms); which algorithm signs is OIDC-ID-TOKEN-RS256's.
        expectKey(isPublicKey(key), 'each key must be a public key (RSA n and e, EC crv x y, OKP crv x)', () => ({
          kid: key.kid ?? null,
          kty: key.kty ?? null,
        }));
        // kid is optional (RFC 7517 §4.5); with several keys a token must name one (OIDC Core §10.1).
        expectKey(
          jwks.keys.length === 1 || (typeof key.kid === 'string' && key.kid.length > 0),
          'in a set of several keys each key must carry a kid',
          () => ({ kty: key.kty, keys: jwks.keys.length }),
        );
        expectKey(
          key.use === undefined || key.use === 'sig' || key.use === 'enc',
          'a key use must be sig or enc',
          () => ({
            kid: key.kid,
            use: key.use,
          }),
        );
        expectKey(!mixed || key.use !== undefined, 'in a set with encryption keys every key must carry use', () => ({
          kid: key.kid,
        }));
      }
      // Keys for token verification (L113): at least one of them signs.
      t.expect(
        jwks.keys.some((k) => k.use !== 'enc' && (k.alg === undefined || SIGNING_ALG.test(k.alg))),
        `${KEYS_PATH} must publish a signing key (use sig or none, no encryption alg)`,
        {
          // The first keys and how many: a detail made of every key was millions of objects (review 12).
          keys: jwks.keys.slice(0, 20).map((k) => ({ kid: k.kid ?? null, use: k.use ?? null, alg: k.alg ?? null })),
          count: jwks.keys.length,
        },
      );
      judgeKeySet(t, jwks);
    },
  },
  {
    id: 'oidc.userinfo',
    suite: 'oidc',
    title: 'GET and POST /oauth/userinfo with an openid token return JSON claims whose sub is the id_token sub',
    rules: ['OIDC-USERINFO'],
    needs: ['oidc'],
    async run(t: CheckContext) {
      const app = openidApp(t);
      const tokens = await t.oauth.token(app, { scope: 'openid' });
      const clientId = t.config.applications![app]!.clientId;
      const sub = await idTokenSub(t, tokens, clientId);
      for (const method of ['get', 'post'] as const) {
        const what = `${method.toUpperCase()} ${USERINFO_PATH}`;
        const res = await t.http[method](USERINFO_PATH, { bearer: tokens.access_token });
        const body = isJwt(res) ? await signedUserinfo(t, res, what, clientId) : jsonObject(res);
        t.expect(res.status === 200 && body, `${what} must answer 200 with JSON claims (or a signed JWT of them)`, {
          status: res.status,
        });
        if (!isJwt(res)) expectJsonType(t, res, what);
        t.expect(body.sub === sub, 'userinfo sub must equal the id_token sub', {
          sub: body.sub ?? null,
          idTokenSub: sub,
        });
      }
    },
  },
  {
    id: 'oidc.userinfo-requires-openid',
    suite: 'oidc',
    title: 'A token without openid is refused on /oauth/userinfo with 403 insufficient_scope',
    rules: ['OIDC-USERINFO-REQUIRES-OPENID'],
    needs: ['oidc', 'userinfo'],
    async run(t: CheckContext) {
      const app = openidApp(t);
      const tokens = await t.oauth.token(app, { scope: scopeWithoutOpenid(t, app) });
      const res = await t.http.get(USERINFO_PATH, { bearer: tokens.access_token });
      await expectUserinfoServes(t, res);
      t.expect(res.status === 403, `${USERINFO_PATH} must refuse a token without openid with 403`, {
        status: res.status,
      });
      t.expect(
        namesError(res, 'insufficient_scope'),
        'the refusal must name insufficient_scope (WWW-Authenticate or JSON body)',
        { error: jsonObject(res)?.error ?? null, wwwAuthenticate: res.headers.get('www-authenticate') },
      );
    },
  },
  {
    id: 'oidc.userinfo-invalid-token',
    suite: 'oidc',
    title: '/oauth/userinfo without a token or with an unknown one answers 401 with WWW-Authenticate Bearer',
    rules: ['OIDC-USERINFO-INVALID-TOKEN'],
    needs: ['userinfo'],
    async run(t: CheckContext) {
      await t.property(fc.option(fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/), { nil: undefined }), async (token) => {
        const res = await t.http.get(USERINFO_PATH, token === undefined ? {} : { bearer: token });
        await expectUserinfoServes(t, res);
        const what = token === undefined ? 'userinfo without a token' : 'userinfo with a token never issued';
        t.expect(res.status === 401, `${what} must answer 401`, { status: res.status });
        t.expect(hasBearerChallenge(res), `${what} must carry WWW-Authenticate: Bearer`, { status: res.status });
      });
    },
  },
  {
    id: 'oidc.legacy-jwks-alias',
    suite: 'oidc',
    title: 'Before 17.0, /-/jwks serves the same key set as /oauth/discovery/keys',
    rules: ['VER-JWKS-ALIAS'],
    async run(t: CheckContext) {
      if (!t.inForce('VER-JWKS-ALIAS')) t.skip(`/-/jwks exists only before 17.0 (this run: ${t.release})`);
      const [current, legacy] = [
        await keySetPremise(t, () => fetchJwks(t)),
        await fetchJwks(t, { path: LEGACY_JWKS_PATH, rule: 'VER-JWKS-ALIAS', owner: true }),
      ];
      const same = JSON.stringify(legacy) === JSON.stringify(current);
      t.expect(
        same,
        `${LEGACY_JWKS_PATH} must serve the key set of ${KEYS_PATH}`,
        same ? undefined : firstDifference(current, legacy),
      );
    },
  },
  {
    id: 'oidc.legacy-jwks-removed',
    suite: 'oidc',
    title: 'From 17.0, /-/jwks answers 404',
    rules: ['VER-JWKS-REMOVED'],
    async run(t: CheckContext) {
      if (!t.inForce('VER-JWKS-REMOVED')) t.skip(`/-/jwks is removed from 17.0 (this run: ${t.release})`);
      // A 404 shows the alias removed only where the key set itself is served (oidc.jwks says if not).
      await keySetPremise(t, () => fetchJwks(t));
      const res = await t.http.get(LEGACY_JWKS_PATH);
      t.expect(res.status === 404, `${LEGACY_JWKS_PATH} must answer 404 from 17.0`, { status: res.status });
    },
  },
];
