/**
 * The allowed variants of issue 21, one list: each a rewrite of the simulator's answers (or the
 * client's requests) into a form the source (spec/source-spec.md, line L..) or an RFC allows, with
 * the checks it concerns. oauth-variants.test.ts proves no must verdict changes under any of them;
 * test/diff/allowed.test.ts that `diff` reports what they change as `allowed`.
 */
import { X509Certificate, createHash, generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { digest } from '../../simulator/digest.js';
import { signingKey } from '../../simulator/oauth/keys.js';
import type { Variant } from './corpus.js';
import { formOf, idTokenClaims, jsonOf, setJson, signedBySim, type OAuthProxy, type Rewrite } from './oauth-proxy.js';
import { asksJson, negotiates } from './json-only-when-asked.js';
import { decodeEntities } from '../../suites/drivers/html.js';

export type { Variant } from './corpus.js';

const oauth = (path: string) => path.startsWith('/oauth/') || path.startsWith('/.well-known/');
const isToken = (path: string) => path === '/oauth/token';
const EXTRA = { x_variant_note: 'a member nobody asked for' };
/** Device codes given one more second while a request is served (the variant at second 300). */
const stretched: Array<{ expiresIn: number }> = [];
/** The checks whose token requests are refused on purpose: what a variant of the refusal's status concerns. */
const TOKEN_REFUSAL_CHECKS = [
  'grants.pkce-verifier-mismatch',
  'grants.code-single-use',
  'grants.redirect-uri-mismatch',
  'grants.code-unknown',
  'grants.missing-parameter',
  'grants.unsupported-grant-type',
  'grants.token-error-body',
  'grants.password-bad-credentials',
  'grants.refresh-rotation',
  'device.slow-down',
  'device.expired-token',
  'device.single-use',
  'device.client-bound',
  'device.state-machine',
];
/** The content codings a compressing provider takes in turn. */
const CODINGS = [
  { name: 'gzip', encode: (b: Buffer) => gzipSync(b) },
  { name: 'br', encode: (b: Buffer) => brotliCompressSync(b) },
  { name: 'deflate', encode: (b: Buffer) => deflateSync(b) },
];
let compressed = 0;
/** Token and device authorization requests the variant below answered, by whether they asked for JSON, per proxy origin (a file's own). */
const byAccept = new Map<string, { json: number; none: number }>();

/** A Spring-like consent page's requested scopes, by the page's other fields (consentKey). */
const consentAsked = new Map<string, string[]>();
/** The consent form's fields besides the scope boxes, the decision and the remember box, in one order. */
const consentKey = (fields: Array<[string, string]>) =>
  JSON.stringify(fields.filter(([name]) => !['scope', 'decision', 'remember'].includes(name)).sort());
let remembered = 0;
/** A remembering provider's consents: the scopes each client_id was granted. */
const consented = new Map<string, Set<string>>();

/** Refresh tokens a provider keeps when their access token is revoked (the simulator revokes both). */
const spared: Array<{ revokedAt: number | null }> = [];

/** The codes the provider handed out in a redirect (a code-first server knows them). */
const issuedCodes = new Set<string>();

/** JWT access tokens handed out for the simulator's opaque ones (Entra ID, Auth0, Okta, Keycloak). */
const jwtFor = new Map<string, string>();

/** A JWT access token of about 1.3 KB as Entra ID issues them; the proxy maps it back to the simulator's token. */
function jwtAccessToken(origin: string, token: string, now: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const jti = digest(token).slice(0, 22);
  const claims = { aud: origin, iss: `${origin}/`, iat: now, nbf: now, exp: now + 7200, jti, uti: jti, ver: '1.0' };
  const padding = { xms_tcdt: 1_700_000_000, wids: Array.from({ length: 12 }, (_, i) => `${i}`.padStart(36, 'b')) };
  const signature = createHash('sha512').update(token).digest('base64url').repeat(4);
  const jwt = `${part({ typ: 'JWT', alg: 'RS256', kid: 'entra-like-kid' })}.${part({ ...claims, ...padding })}.${signature}`;
  jwtFor.set(jwt, token);
  return jwt;
}

/** The simulator's token for a JWT the client presents (unknown ones go as they are). */
const backToSim = (value: string) => jwtFor.get(value) ?? value;

/**
 * Access and refresh tokens in standard base64, `+`, `/` and `=` padding in them (RFC 6750 §2.1's
 * b64token allows each), as opaque tokens of some providers are: what the client presents maps
 * back to the simulator's. A `+` sent unencoded in a query or a form would arrive as a space.
 */
const base64For = new Map<string, string>();
const base64Token = (token: string) => {
  const odd = `${Buffer.from(token).toString('base64').slice(0, 30)}+/${digest(token).slice(0, 8)}/+==`;
  base64For.set(odd, token);
  return odd;
};

/** The id_token claims of a grant, by the refresh token the client holds (Keycloak's refresh answers a new id_token). */
const idClaims = new Map<string, Record<string, unknown>>();
let refreshedIdTokens = 0;

/** An id_token re-signed with the simulator's own (only) key, its header without kid. */
async function withoutKid(sim: OAuthProxy['sim'], idToken: string): Promise<string> {
  const key = await signingKey(sim);
  return new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(key.privateKey);
}

const idTokenWithoutKid: Rewrite['answer'] = async (asked, answer, sim) => {
  const body = isToken(asked.url.pathname) ? jsonOf(answer) : undefined;
  if (typeof body?.id_token !== 'string') return false;
  setJson(answer, { ...body, id_token: await withoutKid(sim, body.id_token) });
  return true;
};

/** Auth0's issuer spelling in the id_token: with a trailing slash. */
const withSlash = idTokenClaims((claims) => ({ ...claims, iss: `${String(claims.iss).replace(/\/$/, '')}/` }));

/** The auth-params of the simulator's Bearer challenge (name="value", no quote inside a value). */
function challengeParams(challenge: string): Array<[string, string]> {
  return [...challenge.matchAll(/(?<!\w)(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]);
}

/**
 * A self-signed certificate (CN=accounts.example.invalid, made once with openssl for this corpus;
 * its private key was thrown away): the x5c of a key the provider publishes and signs nothing with.
 */
const CERTIFICATE_DER =
  'MIIDKTCCAhGgAwIBAgIUOO4DM4e+I0BI0NpsAWi+533H4KMwDQYJKoZIhvcNAQELBQAwIzEhMB8GA1UEAwwYYWNjb3VudHMuZXhhbXBsZS5pbnZhbGlkMCAXDTI2MTEyNjA1MzYyMloYDzIxMjYxMTAyMDUzNjIyWjAjMSEwHwYDVQQDDBhhY2NvdW50cy5leGFtcGxlLmludmFsaWQwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDEyjDCWQNQJnvLEPPOtm6kMT8kmRzPYFZF49wdBqYl7YDrDgd3z//x5Pdi2Ny9q9Rxb/tLgras7NnA+q0FwufowvgvhaSr985jr4XtJWujP7qq8mx5L9L3j6eliqss5nvqdItG7B1t7Qwy7czpjP9vf/5ayIJBNA8AyZAxZ6U97Lso2wRn7rc3pBicegDU8DeEPf0+AZHXbL8qtnQypfCtGvOeImggG5SxFA40Q2pjZtq+0kRkf/7Gb+O371PZl5vOJTbdMJQZB/cLIxi+lFz5kXwtrMqo0mURLLCYqs1WEdHQ0AAGL0dk9bEBLqqw/oWmGWGtYJHMUbzlj7Jo/4IVAgMBAAGjUzBRMB0GA1UdDgQWBBSh7YKSdKbUeYZFxyMDLRGOIc999TAfBgNVHSMEGDAWgBSh7YKSdKbUeYZFxyMDLRGOIc999TAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQBEtQn0YXBxzDlDDMTH5BAA0OEBhcKMo9nAokFGy/S1lQsMjVrqb0OLDG3a2tFC042/bB8FfXVziDGlZM1Jy9yMVefUEULXc04qGRpHIJ4VbIlM6AzkiF9JWXZ7Ab657c1T6vQC0Y8zyxRvArqTwiWfGeKNiA3PX0UwnklMmuyCXE41iICjdiW+3Qu2OG5yKuo9tU1XKcM02P4AHQZI06FXlMO15FMqBaesD3MT66mv4pLbQ+BA+sRBFK5Fbj4CQ4B7A1cB9ouBkOBVVoFf7XF/m9TcOaM5ypfrlG/HU6ZSRvkUwafykLsV+KRzUs6sbEJbmKedgPatWxRHhLfi8drQ';

/** A retired or standby signing key as Microsoft Entra ID publishes its keys: x5c, x5t and issuer, no alg. */
function certificateKey(issuer: string): JWK & { issuer: string } {
  const der = Buffer.from(CERTIFICATE_DER, 'base64');
  const { n, e } = new X509Certificate(der).publicKey.export({ format: 'jwk' });
  const x5t = createHash('sha1').update(der).digest('base64url');
  return { kty: 'RSA', use: 'sig', kid: x5t, x5t, n, e, x5c: [CERTIFICATE_DER], issuer };
}

/** Keycloak's encryption key (RSA-OAEP, use enc) and an ES256 key of a realm that also signs with EC. */
let otherKeys: Promise<JWK[]> | undefined;
const keycloakKeys = () =>
  (otherKeys ??= Promise.all([
    generateKeyPair('RSA-OAEP').then(async ({ publicKey }) => ({
      ...(await exportJWK(publicKey)),
      kid: 'keycloak-enc',
      use: 'enc',
      alg: 'RSA-OAEP',
    })),
    generateKeyPair('ES256').then(async ({ publicKey }) => ({
      ...(await exportJWK(publicKey)),
      kid: 'keycloak-es256',
      use: 'sig',
      alg: 'ES256',
    })),
  ]));

/** A provider's signer: the key it publishes (its kid and alg) and how it signs an id_token's claims. */
interface Signer {
  alg: string;
  kid: string;
  jwk: JWK;
  sign(claims: JWTPayload): Promise<string>;
}

/**
 * Signing keys of other types and the algorithm each signs with (Okta and Ory Hydra can sign with
 * PS256 or ES256, Zitadel with ES384 or EdDSA, Authentik with ES256/ES384, Keycloak with any).
 */
const OTHER_ALGS = ['PS256', 'ES256', 'ES384', 'EdDSA', 'Ed25519'] as const;
const joseSigners = () =>
  Promise.all(
    OTHER_ALGS.map(async (alg): Promise<Signer> => {
      const { publicKey, privateKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
      const kid = `signs-${alg.toLowerCase()}`;
      return {
        alg,
        kid,
        jwk: { ...(await exportJWK(publicKey)), kid, use: 'sig', alg },
        sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'JWT' }).sign(privateKey),
      };
    }),
  );

/**
 * Registered algorithms jose (v6) neither makes nor verifies, signed by hand with Node's crypto:
 * EdDSA over Ed448 (RFC 8037 §3.1), Ed448 (RFC 9864 §2.2), ES256K over secp256k1 (RFC 8812 §3.2).
 */
const NODE_ALGS = ['EdDSA', 'Ed448', 'ES256K'] as const;
const nodeSigners = () =>
  NODE_ALGS.map((alg): Signer => {
    const ec = alg === 'ES256K';
    const { publicKey, privateKey } = ec
      ? generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
      : generateKeyPairSync('ed448');
    const kid = `node-${alg.toLowerCase()}`;
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return {
      alg,
      kid,
      jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg },
      async sign(claims) {
        const input = `${part({ alg, kid, typ: 'JWT' })}.${part(claims)}`;
        const key = ec ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
        return `${input}.${cryptoSign(ec ? 'sha256' : null, Buffer.from(input), key).toString('base64url')}`;
      },
    };
  });

/**
 * A provider whose id_tokens are signed by each of `make`'s keys in turn (one id_token a run):
 * the key set publishes them all beside the RSA one, and discovery declares their algorithms. Only
 * RS256's should (the default, OIDC Core §3.1.3.7) is broken; the signature proves.
 */
function signedInTurn(
  name: string,
  cite: string,
  algs: readonly string[],
  make: () => Signer[] | Promise<Signer[]>,
): Variant {
  let made: Promise<Signer[]> | undefined;
  let next = 0;
  return {
    name,
    cite,
    checks: ['oidc.discovery', 'oidc.jwks', 'oidc.id-token'],
    flags: { runs: String(algs.length) },
    warns: ['OIDC-ID-TOKEN-RS256'],
    rewrite: {
      async answer(asked, answer) {
        const body = jsonOf(answer);
        const signers = await (made ??= Promise.resolve(make()));
        if (asked.url.pathname === '/.well-known/openid-configuration' && body) {
          const declared = (body.id_token_signing_alg_values_supported as string[] | undefined) ?? ['RS256'];
          setJson(answer, { ...body, id_token_signing_alg_values_supported: [...declared, ...algs] });
          return true;
        }
        if (Array.isArray(body?.keys)) {
          setJson(answer, { keys: [...(body.keys as JWK[]), ...signers.map((o) => o.jwk)] });
          return true;
        }
        if (typeof body?.id_token !== 'string') return false;
        const id_token = await signers[next++ % signers.length].sign(decodeJwt(body.id_token));
        setJson(answer, { ...body, id_token });
        return true;
      },
    },
    after(report) {
      const verified = report.checks.filter((c) => ['oidc.id-token', 'oidc.jwks'].includes(c.id));
      expect(verified.map((c) => `${c.id} ${c.status}`)).toEqual(['oidc.id-token warned', 'oidc.jwks passed']);
      expect(next).toBeGreaterThanOrEqual(algs.length);
    },
  };
}

export const VARIANTS: Variant[] = [
  {
    name: 'token and device authorization answers JSON whatever the Accept, with Vary: Accept',
    cite: 'RFC 6749 §5.1, RFC 8628 §3.2: JSON; RFC 9110 §12.5.1: no Accept accepts any type, §12.5.5: Vary may name Accept',
    checks: ['grants.token-response-fields', 'device.authorization-response'],
    rewrite: {
      answer(asked, answer) {
        if (!negotiates(asked) || !jsonOf(answer)) return false;
        const seen = byAccept.get(asked.url.origin) ?? { json: 0, none: 0 };
        byAccept.set(asked.url.origin, seen);
        if (asked.headers.accept === undefined) seen.none++;
        else if (asksJson(asked)) seen.json++;
        answer.head.set('vary', [...(answer.head.get('vary') ?? []), 'Accept']);
        return true;
      },
    },
    after(report) {
      // Asked as clients ask, and once per response kind without Accept: JSON both ways, nothing failed.
      const seen = byAccept.get(new URL(report.target).origin);
      byAccept.delete(new URL(report.target).origin);
      expect(seen?.json).toBeGreaterThan(0);
      expect(seen?.none).toBe(2);
    },
  },
  {
    name: 'token errors answer 403',
    cite: 'L149, L262: no status shown; RFC 6749 §5.2 says 400 "unless specified otherwise", no MUST',
    checks: TOKEN_REFUSAL_CHECKS,
    warns: ['ERR-TOKEN-STATUS'],
    rewrite: {
      answer(asked, answer) {
        if (!isToken(asked.url.pathname) || answer.status !== 400) return false;
        answer.status = 403;
        return true;
      },
    },
  },
  {
    name: 'unknown members in every JSON answer',
    cite: 'RFC 6749 §5.1 (clients MUST ignore unrecognized names), RFC 7517 §4, OIDC Core §5.1; not the revoke {} (L65) nor the password response (L150: "only")',
    checks: [
      'grants.token-response-fields',
      'grants.pkce-valid-verifier',
      'grants.refresh-rotation',
      'grants.token-error-body',
      'device.token-response',
      'device.authorization-response',
      'tokens.info-presentations',
      'tokens.info-deprecated-aliases',
      'oidc.id-token',
      'oidc.discovery',
      'oidc.jwks',
      'oidc.userinfo',
    ],
    rewrite: {
      answer(asked, answer) {
        const body = jsonOf(answer);
        if (!oauth(asked.url.pathname) || !body || asked.url.pathname === '/oauth/revoke') return false;
        if (formOf(asked).get('grant_type') === 'password') return false;
        const keys = Array.isArray(body.keys) ? { keys: body.keys.map((k: object) => ({ ...k, ...EXTRA })) } : {};
        setJson(answer, { ...body, ...EXTRA, ...keys });
        return true;
      },
    },
  },
  {
    name: 'application/json; charset=utf-8',
    cite: 'RFC 8259 §11 and RFC 9110 §8.3: a media type may carry parameters; L18 says only "JSON"',
    checks: [
      'grants.token-response-fields',
      'grants.token-error-body',
      'device.authorization-response',
      'tokens.info-presentations',
      'tokens.revoke-access-token',
      'tokens.json-content-type',
      'grants.token-response-headers',
      'oidc.jwks',
      'oidc.userinfo',
      'oidc.discovery',
    ],
    warns: ['ENC-JSON-CONTENT-TYPE'],
    rewrite: {
      answer(asked, answer) {
        if (!oauth(asked.url.pathname) || answer.head.get('content-type')?.[0] !== 'application/json') return false;
        answer.head.set('content-type', ['application/json; charset=utf-8']);
        return true;
      },
    },
  },
  {
    name: 'preflight grants only the requested headers, from a list without Content-Type',
    cite: 'L172-173: only certain headers, the list is not shown (a form Content-Type is CORS-safelisted)',
    checks: [
      'cors.preflight',
      'cors.preflight-standard-headers',
      'cors.x-requested-with-refused',
      'cors.unlisted-headers-refused',
    ],
    warns: ['CORS-ALLOWED-HEADERS-LIST'],
    rewrite: {
      answer(asked, answer) {
        if (asked.method !== 'OPTIONS' || !answer.head.has('access-control-allow-headers')) return false;
        const allowed = answer.head
          .get('access-control-allow-headers')![0]
          .toLowerCase()
          .split(',')
          .map((h) => h.trim());
        const requested = String(asked.headers['access-control-request-headers'] ?? '')
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h && h.toLowerCase() !== 'content-type' && allowed.includes(h.toLowerCase()));
        if (requested.length) answer.head.set('access-control-allow-headers', [requested.join(', ')]);
        else answer.head.delete('access-control-allow-headers');
        return true;
      },
    },
  },
  {
    // nginx's and CDNs' common `add_header Access-Control-Allow-Methods *`, with Allow-Origin `*`.
    name: 'preflight allows the methods with `*`, credentials not allowed',
    cite: 'L171: preflight is supported; Fetch CORS-preflight fetch: `*` is every method to a request without credentials',
    checks: ['cors.preflight'],
    rewrite: {
      answer(asked, answer) {
        if (asked.method !== 'OPTIONS' || !answer.head.has('access-control-allow-methods')) return false;
        answer.head.set('access-control-allow-methods', ['*']);
        answer.head.delete('access-control-allow-credentials');
        return true;
      },
    },
  },
  {
    name: 'preflight without Access-Control-Allow-Methods',
    cite: 'L171: preflight is supported; Fetch CORS-preflight fetch: a CORS-safelisted method (POST, GET) need not be listed',
    checks: ['cors.preflight'],
    rewrite: {
      answer(asked, answer) {
        if (asked.method !== 'OPTIONS' || !answer.head.has('access-control-allow-methods')) return false;
        answer.head.delete('access-control-allow-methods');
        return true;
      },
    },
  },
  {
    name: 'CORS on most /oauth endpoints, not on the key set',
    cite: 'L170: "many /oauth endpoints" support CORS; L171 names the preflight ones',
    checks: ['cors.simple-requests'],
    rewrite: {
      answer(asked, answer) {
        if (asked.url.pathname !== '/oauth/discovery/keys' || !answer.head.has('access-control-allow-origin'))
          return false;
        for (const name of [...answer.head.keys()]) if (name.startsWith('access-control-')) answer.head.delete(name);
        return true;
      },
    },
  },
  {
    name: 'id_token without kid, signed by the only published key',
    cite: 'RFC 7515 §4.1.4: kid is OPTIONAL; OIDC Core §10.1: it may be left out when there is one key',
    checks: ['oidc.id-token', 'oidc.userinfo'],
    rewrite: { answer: idTokenWithoutKid },
  },
  {
    name: 'a key set whose single key has no kid (and id_tokens without kid)',
    cite: 'RFC 7517 §4.5: kid is OPTIONAL; L178: the shape of the keys is not shown',
    checks: ['oidc.jwks', 'oidc.id-token', 'oidc.legacy-jwks-alias'],
    rewrite: {
      async answer(asked, answer, sim) {
        const body = jsonOf(answer);
        if (Array.isArray(body?.keys)) {
          setJson(answer, { keys: body.keys.map(({ kid: _kid, ...key }: Record<string, unknown>) => key) });
          return true;
        }
        return idTokenWithoutKid(asked, answer, sim);
      },
    },
  },
  {
    name: 'a device token response with a refresh_token',
    cite: 'L29: absent "in the responses shown"; RFC 8628 §3.5 and RFC 6749 §5.1: refresh_token is OPTIONAL',
    checks: ['device.token-response', 'device.state-machine'],
    rewrite: {
      answer(asked, answer) {
        const body = jsonOf(answer);
        if (!isToken(asked.url.pathname) || typeof body?.access_token !== 'string') return false;
        if (!formOf(asked).get('grant_type')?.endsWith(':device_code')) return false;
        setJson(answer, { ...body, refresh_token: `variant-refresh-${body.access_token.slice(-8)}` });
        return true;
      },
    },
  },
  {
    name: 'application.uid null for a token issued without a client',
    cite: 'L51 shows uid for tokens of an application; spec/openapi.yaml TokenInfo allows null',
    checks: ['grants.password-without-client'],
    rewrite: {
      answer(asked, answer) {
        const body = jsonOf(answer);
        const app = body?.application as { uid?: unknown } | undefined;
        if (asked.url.pathname !== '/oauth/token/info' || app?.uid !== '') return false;
        setJson(answer, { ...body, application: { ...app, uid: null } });
        return true;
      },
    },
  },
  {
    name: 'the password grant of a two-factor user refused with invalid_request',
    cite: 'L245: "disabled for users with two-factor authentication", no code named; L262: a standard code',
    checks: ['grants.password-two-factor-refused'],
    rewrite: {
      answer(asked, answer, sim) {
        const form = formOf(asked);
        const user = [...sim.store.users.values()].find((u) => u.username === form.get('username'));
        if (!isToken(asked.url.pathname) || form.get('grant_type') !== 'password' || !user?.twoFactor) return false;
        setJson(answer, { error: 'invalid_request', error_description: 'Two-factor users cannot use this grant.' });
        return true;
      },
    },
  },
  {
    name: 'a JSON body sent as text/plain is read as JSON',
    cite: 'L191: "JSON bodies need Content-Type: application/json" obliges the client, not the server',
    checks: ['encoding.array-params-body'],
    rewrite: {
      request(asked) {
        if (!asked.url.pathname.startsWith('/api/v4/') || asked.headers['content-type'] !== 'text/plain') return false;
        try {
          JSON.parse(asked.body.toString('utf8'));
        } catch {
          return false;
        }
        asked.headers['content-type'] = 'application/json';
        return true;
      },
    },
  },
  {
    name: 'a code it never issued is invalid_grant, whatever the client secret',
    cite: 'RFC 6749 §4.1.3 and §5.2: the order of the code and client checks is not fixed',
    checks: ['grants.application-registration'],
    rewrite: {
      answer(asked, answer) {
        for (const location of answer.head.get('location') ?? []) {
          const code = new URL(location, 'http://x').searchParams.get('code');
          if (code) issuedCodes.add(code);
        }
        const form = formOf(asked);
        if (!isToken(asked.url.pathname) || form.get('grant_type') !== 'authorization_code') return false;
        if (issuedCodes.has(form.get('code') ?? '') || jsonOf(answer)?.error !== 'invalid_client') return false;
        answer.status = 400;
        answer.head.delete('www-authenticate');
        setJson(answer, { error: 'invalid_grant', error_description: 'The authorization code is not valid.' });
        return true;
      },
    },
  },
  {
    name: 'a device code still accepted at exactly second 300',
    cite: 'L41, L277: a lifetime of 300 s; RFC 8628 §3.2 does not say whether second 300 is inside it',
    checks: ['device.expired-token', 'device.state-machine'],
    unseen: 'the checks step over the very second the lifetime ends, as nobody says which side it is on',
    rewrite: {
      request(_asked, sim) {
        const now = sim.clock.nowSeconds();
        // Expiry counted strictly after the lifetime: at the very second, the code still lives.
        for (const record of sim.store.deviceCodes.values())
          if (now === record.createdAt + record.expiresIn) {
            record.expiresIn += 1;
            stretched.push(record);
          }
        return stretched.length > 0;
      },
      answer() {
        for (const record of stretched.splice(0)) record.expiresIn -= 1;
      },
    },
  },

  {
    name: 'every answer with Connection: close',
    cite: 'RFC 9112 §9.6: a server may close the connection after any response',
    checks: [
      'grants.token-response-fields',
      'grants.code-single-use',
      'device.token-response',
      'tokens.revoke-access-token',
      'oidc.userinfo',
    ],
    rewrite: {
      answer(_asked, answer) {
        answer.head.set('connection', ['close']);
        return true;
      },
    },
  },
  {
    name: 'every answer with a body compressed (gzip, br, deflate in turn)',
    cite: 'RFC 9110 §12.5.3: a request without Accept-Encoding accepts any content coding; §8.4.1 gzip, deflate',
    checks: [
      'grants.token-response-fields',
      'grants.token-error-body',
      'grants.code-single-use',
      'device.authorization-response',
      'tokens.info-presentations',
      'tokens.revoke-access-token',
      'tokens.json-content-type',
      'oidc.jwks',
      'oidc.userinfo',
      'oidc.discovery',
    ],
    rewrite: {
      answer(_asked, answer) {
        if (!answer.body.length) return false;
        const coding = CODINGS[compressed++ % CODINGS.length];
        answer.body = coding.encode(answer.body);
        answer.head.set('content-encoding', [coding.name]);
        return true;
      },
    },
  },
  {
    name: 'code and refresh responses name the granted scopes, in another order',
    cite: 'L31: scope is shown in the device response only; RFC 6749 §5.1: scope is OPTIONAL, §3.3: a space-delimited list (no order)',
    checks: [
      'grants.token-response-fields',
      'grants.refresh-rotation',
      'grants.scope-within-application',
      'grants.scope-default',
    ],
    rewrite: {
      answer(asked, answer, sim) {
        const body = isToken(asked.url.pathname) ? jsonOf(answer) : undefined;
        if (typeof body?.access_token !== 'string' || typeof body.refresh_token !== 'string') return false;
        const held = sim.store.accessTokens.get(digest(body.access_token));
        if (!held || held.scopes.length < 2) return false;
        setJson(answer, { ...body, scope: [...held.scopes].reverse().join(' ') });
        return true;
      },
    },
  },
  {
    name: 'Cache-Control directives in other case and order, over two header lines',
    cite: 'RFC 6749 §5.1 asks for no-store; RFC 9111 §5.2: directives compare case-insensitively, RFC 9110 §5.3: a list may span lines',
    checks: ['grants.token-response-headers'],
    rewrite: {
      answer(asked, answer) {
        if (!isToken(asked.url.pathname) || !answer.head.has('cache-control')) return false;
        answer.head.set('cache-control', ['private, No-Cache', 'NO-STORE, max-age=0']);
        answer.head.set('pragma', ['No-Cache']);
        return true;
      },
    },
  },
  {
    name: 'token errors answer 200 with the OAuth error body',
    cite: 'L149, L262: a failure returns the OAuth error body, no status shown; RFC 6749 §5.2 says 400 "unless specified otherwise", no MUST',
    checks: TOKEN_REFUSAL_CHECKS,
    warns: ['ERR-TOKEN-STATUS'],
    rewrite: {
      answer(asked, answer) {
        if (!isToken(asked.url.pathname) || answer.status !== 400 || typeof jsonOf(answer)?.error !== 'string')
          return false;
        answer.status = 200;
        return true;
      },
    },
  },
  {
    name: 'a Basic challenge before the Bearer one, whose parameters come in another order, with realm and unquoted tokens',
    cite: 'RFC 7235 §4.1: several challenges, §2.1: auth-param is a token or a quoted-string; RFC 6750 §3: realm and attribute order free',
    checks: [
      'scopes.bad-token-401',
      'scopes.revoked-token-401',
      'scopes.missing-token-401',
      'scopes.insufficient-scope-403',
      'oidc.userinfo-invalid-token',
      'tokens.info-dead-token',
    ],
    rewrite: {
      answer(_asked, answer) {
        const challenge = answer.head.get('www-authenticate')?.[0];
        if (!challenge || !/^bearer\b/i.test(challenge)) return false;
        const params = challengeParams(challenge).reverse();
        const written = params.map(([k, v]) => (/^[\w.-]+$/.test(v) ? `${k}=${v}` : `${k}="${v}"`));
        answer.head.set('www-authenticate', ['Basic realm="idp"', `bearer realm="idp" , ${written.join(' ,')}`]);
        return true;
      },
    },
  },
  {
    name: 'the authorization redirect carries iss and session_state',
    cite: 'RFC 9207 §2: iss in the authorization response; RFC 6749 §4.1.2: the client MUST ignore unrecognized response parameters (OIDC Session Management §3: session_state)',
    checks: [
      'grants.state-unchanged',
      'grants.code-single-use',
      'grants.consent-denied',
      'grants.scope-outside-application',
      'grants.response-type-code-only',
      'grants.pkce-valid-verifier',
      'oidc.id-token',
    ],
    rewrite: {
      answer(asked, answer) {
        const location = answer.head.get('location')?.[0];
        if (!location || !/[?&](code|error)=/.test(location)) return false;
        const url = new URL(location);
        // The provider's issuer: the simulator's is the origin it was asked on.
        url.searchParams.append('iss', asked.url.origin);
        url.searchParams.append('session_state', 'variant-session-state');
        answer.head.set('location', [url.href]);
        return true;
      },
    },
  },
  {
    name: 'slow_down answered 429 with Retry-After',
    cite: 'RFC 8628 §3.5: slow_down is a token error (RFC 6749 §5.2: 400 "unless specified otherwise", no MUST); Auth0 answers it 429, and RFC 6585 §4 lets a 429 say Retry-After',
    checks: ['device.slow-down', 'device.slow-down-interval-grows', 'device.state-machine'],
    warns: ['ERR-TOKEN-STATUS'],
    rewrite: {
      answer(asked, answer) {
        if (!isToken(asked.url.pathname) || jsonOf(answer)?.error !== 'slow_down') return false;
        answer.status = 429;
        answer.head.set('retry-after', ['5']);
        return true;
      },
    },
  },
  {
    name: 'an id_token whose aud is an array holding the client_id',
    cite: 'OIDC Core §2: aud is in general an array, a single string only in the common special case',
    checks: ['oidc.id-token', 'oidc.userinfo'],
    rewrite: { answer: idTokenClaims((claims) => ({ ...claims, aud: [claims.aud as string] })) },
  },
  {
    // Keycloak publishes its encryption key (RSA-OAEP, use enc) beside the signing ones, and an
    // ES256 key where the realm also signs with EC; Entra ID's keys carry x5c, x5t and issuer and
    // no alg. None of them signs the id_token: clients pick the key its kid names.
    name: 'a key set with keys the id_token does not use: an encryption key, an EC key, a certificate-bound key, no alg',
    cite: 'L178: the shape of the keys is not shown; OIDC Discovery §3 (jwks_uri): the set MAY hold encryption keys, use then on every key; RFC 7517 §4.4, §4.6-4.8: alg, x5c, x5t are OPTIONAL; OIDC Core §10.1: the kid picks the key',
    checks: ['oidc.jwks', 'oidc.id-token', 'oidc.userinfo', 'oidc.legacy-jwks-alias'],
    rewrite: {
      async answer(asked, answer) {
        const body = jsonOf(answer);
        if (!Array.isArray(body?.keys)) return false;
        const own = (body.keys as JWK[]).map(({ alg: _alg, ...key }) => key);
        setJson(answer, { keys: [...own, certificateKey(asked.url.origin), ...(await keycloakKeys())] });
        return true;
      },
    },
    after(report) {
      // The id_token was verified beside them, not skipped.
      const verified = report.checks.filter((c) => ['oidc.id-token', 'oidc.jwks'].includes(c.id));
      expect(verified.map((c) => `${c.id} ${c.status}`)).toEqual(['oidc.id-token passed', 'oidc.jwks passed']);
    },
  },
  signedInTurn(
    'id_tokens signed with PS256, ES256, ES384, EdDSA and Ed25519 in turn, by keys of three types the key set publishes',
    'L178: the keys are not shown; OIDC Core §3.1.3.7 (RS256 the default, any alg the client registered), §10.1 (the kid picks the key); OIDC Discovery §3 id_token_signing_alg_values_supported; RFC 7518 §3.1, RFC 8037 §3.1, RFC 9864 §2.2',
    OTHER_ALGS,
    joseSigners,
  ),
  signedInTurn(
    'id_tokens signed with EdDSA over Ed448, Ed448 and ES256K in turn, registered algorithms jose does not verify',
    'OIDC Core §3.1.3.7 (any alg the client registered), §10.1; RFC 8037 §3.1 (EdDSA, Ed448), RFC 9864 §2.2 (Ed448), RFC 8812 §3.2 (ES256K)',
    NODE_ALGS,
    nodeSigners,
  ),
  {
    // Microsoft Entra ID's error body: AADSTS codes in error_description and error_codes, a trace
    // and a correlation id, a timestamp, and error_uri. (Entra separates the trace lines of
    // error_description with CR LF, outside the characters RFC 6749 §5.2 allows there: that is a
    // deviation of its own in oauth-deviations.test.ts; here they are joined with spaces.)
    name: "OAuth error bodies with Entra ID's extra members: error_codes, timestamp, trace_id, correlation_id, error_uri",
    cite: 'L56-61: the error body carries error and error_description (no "only"); RFC 6749 §5.2: error_uri is OPTIONAL, and §8.2 lets servers add parameters a client ignores',
    checks: [
      ...TOKEN_REFUSAL_CHECKS,
      'device.authorize-refusals',
      'tokens.revoke-client-auth',
      'grants.client-authentication-failures',
    ],
    rewrite: {
      answer(asked, answer) {
        const body = oauth(asked.url.pathname) ? jsonOf(answer) : undefined;
        if (typeof body?.error !== 'string' || typeof body.error_description !== 'string') return false;
        const code = 70000 + (answer.body.length % 1000);
        setJson(answer, {
          ...body,
          error_description: `AADSTS${code}: ${body.error_description} Trace ID: 0a1b2c3d-0000-4000-8000-000000000001 Correlation ID: 0a1b2c3d-0000-4000-8000-000000000002 Timestamp: 2026-11-26 05:35:00Z`,
          error_codes: [code],
          timestamp: '2026-11-26 05:35:00Z',
          trace_id: '0a1b2c3d-0000-4000-8000-000000000001',
          correlation_id: '0a1b2c3d-0000-4000-8000-000000000002',
          error_uri: `${asked.url.origin}/error?code=${code}`,
        });
        return true;
      },
    },
  },
  {
    // Keycloak's token responses: refresh_expires_in, not-before-policy, session_state and scope
    // in every one, and on a refresh of an openid grant a new id_token (its claims the first one's,
    // iat now, no nonce: OIDC Core §12.2).
    name: "Keycloak's token responses: refresh_expires_in, not-before-policy, session_state, scope, an id_token on refresh",
    cite: 'RFC 6749 §5.1: the client MUST ignore unrecognized members, scope is OPTIONAL; OIDC Core §12.2: a refresh response MAY carry an id_token; not the password response (L150: "only")',
    checks: [
      'grants.token-response-fields',
      'grants.refresh-rotation',
      'grants.refresh-after-expiry',
      'grants.refresh-client-bound',
      'grants.scope-default',
      'device.token-response',
      'oidc.id-token',
    ],
    rewrite: {
      async answer(asked, answer, sim) {
        const body = isToken(asked.url.pathname) ? jsonOf(answer) : undefined;
        const form = formOf(asked);
        const grant = form.get('grant_type');
        if (typeof body?.access_token !== 'string' || grant === 'password') return false;
        const held = sim.store.accessTokens.get(digest(body.access_token));
        const extra: Record<string, unknown> = {
          refresh_expires_in: 1800,
          'not-before-policy': 0,
          session_state: '5c1d5e0a-0000-4000-8000-000000000003',
          scope: held?.scopes.join(' ') ?? body.scope,
        };
        const before = idClaims.get(form.get('refresh_token') ?? '');
        if (grant === 'refresh_token' && before && typeof body.refresh_token === 'string') {
          const { nonce: _nonce, ...claims } = before;
          const iat = sim.clock.nowSeconds();
          extra.id_token = await signedBySim(sim, { ...claims, iat, exp: iat + 7200 });
          refreshedIdTokens++;
        }
        const claims = typeof body.id_token === 'string' ? decodeJwt(body.id_token) : before;
        if (claims && typeof body.refresh_token === 'string') idClaims.set(body.refresh_token, claims);
        setJson(answer, { ...body, ...extra });
        return true;
      },
    },
    after() {
      expect(refreshedIdTokens, 'refresh responses that carried a new id_token').toBeGreaterThan(0);
    },
  },
  {
    // Microsoft Entra ID's error redirect: error_description with its AADSTS code, error_uri, and on
    // a cancelled consent error_subcode=cancel, beside error and state.
    name: "error redirects with Entra ID's error_description, error_uri and error_subcode",
    cite: 'RFC 6749 §4.1.2.1: error_description and error_uri are OPTIONAL; §4.1.2: the client MUST ignore unrecognized response parameters',
    checks: [
      'grants.consent-denied',
      'grants.scope-outside-application',
      'grants.scope-unknown',
      'grants.response-type-code-only',
      'grants.authorize-missing-parameters',
    ],
    rewrite: {
      answer(_asked, answer) {
        const location = answer.head.get('location')?.[0];
        if (!location || !URL.canParse(location)) return false;
        const url = new URL(location);
        const error = url.searchParams.get('error');
        if (!error) return false;
        url.searchParams.set('error_description', `AADSTS65004: The request was refused (${error}).`);
        url.searchParams.set('error_uri', `${url.origin}/error?code=65004`);
        if (error === 'access_denied') url.searchParams.set('error_subcode', 'cancel');
        answer.head.set('location', [url.href]);
        return true;
      },
    },
  },
  {
    // Google's device token endpoint answers authorization_pending 428 Precondition Required, and
    // slow_down and access_denied 403 Forbidden.
    name: "device poll refusals in Google's statuses: authorization_pending 428, slow_down and access_denied 403",
    cite: 'L258-261: the codes, no status; RFC 8628 §3.5: token errors of RFC 6749 §5.2, which says 400 "unless specified otherwise", no MUST',
    checks: [
      'device.slow-down',
      'device.slow-down-interval-grows',
      'device.expired-token',
      'device.unknown-user-code',
      'device.verification-page',
      'device.state-machine',
    ],
    warns: ['ERR-TOKEN-STATUS'],
    rewrite: {
      answer(asked, answer) {
        const error = isToken(asked.url.pathname) ? jsonOf(answer)?.error : undefined;
        const status =
          error === 'authorization_pending' ? 428 : ['slow_down', 'access_denied'].includes(String(error)) ? 403 : 0;
        if (!status) return false;
        answer.status = status;
        return true;
      },
    },
  },
  {
    // Entra ID, Auth0, Okta and Keycloak issue access tokens as JWTs of one to two kilobytes, with
    // dots and a readable payload; refresh tokens stay opaque. Presented in a header, a query or a
    // form, they work as any token.
    name: 'access tokens as JWTs of about 1.3 KB',
    cite: "L26: access_token is a string, a bearer credential; RFC 6749 §1.4: its format is not the client's business (RFC 9068: JWT access tokens)",
    checks: [
      'grants.token-response-fields',
      'grants.refresh-rotation',
      'tokens.info-presentations',
      'tokens.info-dead-token',
      'tokens.revoke-access-token',
      'scopes.read-user-reads-current-user',
      'scopes.revoked-token-401',
      'oidc.userinfo',
      'device.token-response',
    ],
    rewrite: {
      request(asked) {
        let changed = false;
        const auth = String(asked.headers.authorization ?? '');
        const bearer = /^Bearer (\S+)$/i.exec(auth)?.[1];
        if (bearer && jwtFor.has(bearer)) {
          asked.headers.authorization = `Bearer ${backToSim(bearer)}`;
          changed = true;
        }
        const query = asked.url.searchParams.get('access_token');
        if (query && jwtFor.has(query)) {
          asked.url.searchParams.set('access_token', backToSim(query));
          changed = true;
        }
        const form = formOf(asked);
        const field = ['token', 'access_token'].find((name) => jwtFor.has(form.get(name) ?? ''));
        if (field && String(asked.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
          form.set(field, backToSim(form.get(field)!));
          asked.body = Buffer.from(form.toString());
          changed = true;
        }
        return changed;
      },
      answer(asked, answer, sim) {
        const body = isToken(asked.url.pathname) ? jsonOf(answer) : undefined;
        if (typeof body?.access_token !== 'string') return false;
        const jwt = jwtAccessToken(asked.url.origin, body.access_token, sim.clock.nowSeconds());
        setJson(answer, { ...body, access_token: jwt });
        return true;
      },
    },
  },
  {
    name: "access and refresh tokens in standard base64: '+', '/' and '=' padding in them",
    cite: 'L26: access_token is a string; RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="',
    checks: [
      'grants.refresh-rotation',
      'tokens.info-presentations',
      'tokens.revoke-access-token',
      'tokens.revoke-refresh-token',
      'scopes.read-user-reads-current-user',
      'oidc.userinfo',
      'scopes.git-token-as-password',
    ],
    rewrite: {
      request(asked) {
        let changed = false;
        const bearer = /^Bearer (\S+)$/i.exec(String(asked.headers.authorization ?? ''))?.[1];
        if (bearer && base64For.has(bearer)) {
          asked.headers.authorization = `Bearer ${base64For.get(bearer)}`;
          changed = true;
        }
        // Git over HTTPS: the token is the Basic password as it is (RFC 7617; git encodes nothing).
        const basic = /^Basic (\S+)$/i.exec(String(asked.headers.authorization ?? ''))?.[1];
        const [user, ...rest] = Buffer.from(basic ?? '', 'base64')
          .toString('utf8')
          .split(':');
        const password = base64For.get(rest.join(':'));
        if (basic && password !== undefined) {
          asked.headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
          changed = true;
        }
        const query = asked.url.searchParams.get('access_token');
        if (query && base64For.has(query)) {
          asked.url.searchParams.set('access_token', base64For.get(query)!);
          changed = true;
        }
        if (!String(asked.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
          return changed;
        const form = formOf(asked);
        for (const field of ['token', 'access_token', 'refresh_token']) {
          const sim = base64For.get(form.get(field) ?? '');
          if (sim === undefined) continue;
          form.set(field, sim);
          asked.body = Buffer.from(form.toString());
          changed = true;
        }
        return changed;
      },
      answer(asked, answer) {
        const body = isToken(asked.url.pathname) ? jsonOf(answer) : undefined;
        if (typeof body?.access_token !== 'string') return false;
        setJson(answer, {
          ...body,
          access_token: base64Token(body.access_token),
          ...(typeof body.refresh_token === 'string' ? { refresh_token: base64Token(body.refresh_token) } : {}),
        });
        return true;
      },
    },
  },
  {
    // Auth0's issuer ends with a slash (https://tenant.auth0.com/), in discovery and in every
    // id_token's iss alike; the config names the same origin without it, as most users write it.
    name: "an issuer with a trailing slash, as Auth0's, in discovery and in the id_token",
    cite: 'OIDC Discovery §3 and §4.3, OIDC Core §3.1.3.7: iss equals the discovery issuer exactly; RFC 3986 §6.2.3: an empty path and / are one URI',
    checks: ['oidc.discovery', 'oidc.id-token', 'oidc.userinfo'],
    rewrite: {
      async answer(asked, answer, sim) {
        const body = jsonOf(answer);
        if (asked.url.pathname === '/.well-known/openid-configuration' && typeof body?.issuer === 'string') {
          setJson(answer, { ...body, issuer: `${body.issuer.replace(/\/$/, '')}/` });
          return true;
        }
        return withSlash(asked, answer, sim);
      },
    },
  },
  {
    // Ory Hydra, Okta, Keycloak and Spring Authorization Server answer userinfo as a signed JWT when
    // the client registered userinfo_signed_response_alg; the config cannot say whether it did.
    name: 'userinfo answered as a JWT signed by the published key (application/jwt), with iss and aud',
    cite: 'OIDC Core §5.3.2: a signed userinfo response is a JWT of content type application/jwt, and SHOULD carry iss and aud; L177: its shape is not shown',
    checks: ['oidc.userinfo', 'oidc.userinfo-invalid-token', 'tokens.revoke-access-token'],
    rewrite: {
      async answer(asked, answer, sim) {
        const claims = asked.url.pathname === '/oauth/userinfo' && answer.status === 200 ? jsonOf(answer) : undefined;
        if (!claims) return false;
        const bearer = /^Bearer (\S+)$/i.exec(String(asked.headers.authorization ?? ''))?.[1] ?? '';
        const held = sim.store.accessTokens.get(digest(bearer));
        const client = [...sim.store.applications.values()].find((a) => a.id === held?.applicationId);
        const signed = await signedBySim(sim, {
          ...claims,
          iss: asked.url.origin,
          ...(client ? { aud: client.uid } : {}),
        });
        answer.body = Buffer.from(signed);
        answer.head.set('content-type', ['application/jwt']);
        return true;
      },
    },
  },
  {
    // Spring Authorization Server (Spring Security's resource server) refuses a token without
    // openid with 403, the error only in the challenge and no body.
    name: 'userinfo refuses a token without openid 403 with insufficient_scope in WWW-Authenticate and no body',
    cite: 'RFC 6750 §3: the error is an attribute of the WWW-Authenticate challenge, §3.1: insufficient_scope is 403; the body is not required',
    checks: ['oidc.userinfo-requires-openid', 'oidc.userinfo'],
    rewrite: {
      answer(asked, answer) {
        if (asked.url.pathname !== '/oauth/userinfo' || answer.status !== 403) return false;
        answer.head = new Map([
          [
            'www-authenticate',
            [
              'Bearer error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token.", error_uri="https://tools.ietf.org/html/rfc6750#section-3.1"',
            ],
          ],
        ]);
        answer.body = Buffer.alloc(0);
        return true;
      },
    },
  },
  {
    // Entra ID's discovery names hosts of its own (rbac_url, msgraph_host) and a jwks_uri with a
    // query (?appid= for an application with its own signing keys); Keycloak's lists
    // mtls_endpoint_aliases, end_session_endpoint and check_session_iframe. The harness sends
    // nothing to the members it does not use.
    name: "discovery with Entra ID's and Keycloak's extra members: mtls_endpoint_aliases on another host, rbac_url, a jwks_uri with a query",
    cite: 'OIDC Discovery §3: providers MAY add members, jwks_uri is a URL (RFC 3986 §3.4: it may have a query); RFC 8705 §5: mtls_endpoint_aliases; OIDC Session Management §3.3, RP-Initiated Logout §2.1',
    checks: ['oidc.discovery', 'oidc.id-token', 'oidc.jwks'],
    rewrite: {
      answer(asked, answer) {
        const doc = asked.url.pathname === '/.well-known/openid-configuration' ? jsonOf(answer) : undefined;
        if (typeof doc?.issuer !== 'string') return false;
        const mtls = 'https://mtls.accounts.example.invalid';
        setJson(answer, {
          ...doc,
          jwks_uri: `${String(doc.jwks_uri)}?appid=0a1b2c3d-0000-4000-8000-000000000004`,
          mtls_endpoint_aliases: { token_endpoint: `${mtls}/oauth/token`, revocation_endpoint: `${mtls}/oauth/revoke` },
          end_session_endpoint: `${doc.issuer}/oauth/logout`,
          check_session_iframe: `${doc.issuer}/oauth/login-status-iframe.html`,
          rbac_url: 'https://pas.example.invalid',
          msgraph_host: 'graph.example.invalid',
          cloud_instance_name: 'example.invalid',
          frontchannel_logout_supported: true,
          tls_client_certificate_bound_access_tokens: true,
        });
        return true;
      },
    },
  },
  {
    // Spring Authorization Server's consent page: a checkbox per requested scope, not ticked, the
    // form posted back to the authorization endpoint with one `scope` field per ticked box; no box
    // ticked is a denial. Ory Hydra's pages add a "remember" box that a one-time consent leaves alone.
    name: 'a consent page with a checkbox per requested scope, only the first ticked, posted back as repeated scope fields (Spring Authorization Server)',
    cite: 'L130: the user is asked to approve the requested scopes (how the page asks is not shown); RFC 6749 §3.3: the server may grant fewer than asked',
    checks: [
      'grants.state-unchanged',
      'grants.consent-denied',
      'grants.scope-within-application',
      'grants.pkce-valid-verifier',
      'grants.token-response-fields',
      'oidc.id-token',
    ],
    rewrite: {
      request(asked) {
        if (asked.method !== 'POST' || asked.url.pathname !== '/oauth/authorize') return false;
        const form = new URLSearchParams(asked.body.toString('utf8'));
        const requested = consentAsked.get(consentKey([...form]));
        if (!requested) return false;
        if (form.has('remember')) remembered++;
        const ticked = form.getAll('scope');
        form.delete('remember');
        form.set('scope', (form.get('decision') === 'approve' ? ticked : requested).join(' '));
        if (!ticked.length) form.set('decision', 'deny');
        asked.body = Buffer.from(form.toString());
        return true;
      },
      answer(asked, answer) {
        if (asked.method !== 'GET' || asked.url.pathname !== '/oauth/authorize') return false;
        const page = answer.body.toString('utf8');
        const scope = /<input type="hidden" name="scope" value="([^"]*)">/.exec(page);
        if (!page.includes('<form id="consent"') || !scope) return false;
        const fields = [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
          ([, name, value]) => [decodeEntities(name), decodeEntities(value)] as [string, string],
        );
        const requested = decodeEntities(scope[1]).split(' ').filter(Boolean);
        consentAsked.set(consentKey(fields), requested);
        // The first box ticked already (a page that ticks them, as Spring's samples do), the others not.
        const boxes = requested.map(
          (s, i) =>
            `<label><input class="form-check-input" type="checkbox" name="scope" value="${s}" id="${s}"${i ? '' : ' checked'}> ${s}</label>`,
        );
        const remember = '<label><input type="checkbox" name="remember" value="true"> Remember my decision</label>';
        answer.body = Buffer.from(page.replace(scope[0], [...boxes, remember].join('\n')));
        return true;
      },
    },
    after() {
      expect(remembered, 'consents posted with the "remember" box ticked').toBe(0);
    },
  },
  {
    // A provider whose clock runs two minutes ahead of the harness's machine, with Entra ID's nbf
    // beside iat: its id_tokens are "not before" a moment the harness has not reached yet.
    name: "id_tokens from a clock 2 minutes ahead, with nbf (Entra ID's) equal to iat",
    cite: "RFC 7519 §4.1.4-4.1.5: implementers MAY allow a small leeway, usually no more than a few minutes, for clock skew; OIDC Core §3.1.3.7: the acceptable range of iat is the client's",
    checks: ['oidc.id-token', 'oidc.userinfo'],
    rewrite: {
      answer: idTokenClaims((claims) => {
        // Two minutes ahead of the harness's own clock (the simulator's may have been moved on).
        const ahead = Math.floor(Date.now() / 1000) + 120;
        return {
          ...claims,
          iat: ahead,
          nbf: ahead,
          exp: ahead + 3600,
          ...(claims.auth_time ? { auth_time: ahead } : {}),
        };
      }),
    },
  },
  {
    // Auth0 refuses a device authorization of a client it does not know or allow with 403.
    name: 'device authorization refusals answered 403',
    cite: 'RFC 8628 §3.2: errors as RFC 6749 §5.2, which says 400 "unless specified otherwise", no MUST; L154 shows no refusal',
    checks: ['device.authorize-refusals'],
    warns: ['ERR-TOKEN-STATUS'],
    rewrite: {
      answer(asked, answer) {
        if (asked.url.pathname !== '/oauth/authorize_device' || answer.status < 400 || !jsonOf(answer)?.error)
          return false;
        answer.status = 403;
        answer.head.delete('www-authenticate');
        return true;
      },
    },
  },
  {
    // Amazon Cognito answers a failed client authentication 400 invalid_client, without a challenge,
    // when the credentials came in the body; the real service (Doorkeeper) answers 401.
    name: "invalid_client answered 400 without WWW-Authenticate to credentials in the body (Cognito's)",
    cite: 'RFC 6749 §5.2: the server MAY answer invalid_client 401, and MUST only when the client used the Authorization header',
    checks: ['grants.client-authentication-failures', 'tokens.revoke-client-auth', 'grants.application-registration'],
    rewrite: {
      answer(asked, answer) {
        if (asked.headers.authorization || answer.status !== 401 || jsonOf(answer)?.error !== 'invalid_client')
          return false;
        answer.status = 400;
        answer.head.delete('www-authenticate');
        return true;
      },
    },
  },
  {
    // Keycloak, Okta, Ory Hydra, Google and GitHub remember a consent: once the user approved an
    // application's scopes, they are not asked again, unless the request says prompt=consent.
    name: 'a consent remembered: approved scopes are not asked again unless prompt=consent',
    cite: 'L130: the user is asked to approve the requested scopes (how often is not shown); OIDC Core §3.1.2.1: prompt=consent makes the server ask again; RFC 6749 §3.1: unknown parameters are ignored',
    checks: ['grants.state-unchanged', 'grants.consent-denied', 'grants.pkce-valid-verifier', 'oidc.id-token'],
    rewrite: {
      async answer(asked, answer, sim) {
        if (asked.method !== 'GET' || asked.url.pathname !== '/oauth/authorize') return false;
        const page = answer.body.toString('utf8');
        if (answer.status !== 200 || !page.includes('<form id="consent"')) return false;
        const fields = [...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
          ([, name, value]) => [decodeEntities(name), decodeEntities(value)] as [string, string],
        );
        const form = new URLSearchParams(fields);
        const granted = consented.get(form.get('client_id') ?? '') ?? new Set<string>();
        const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
        consented.set(form.get('client_id') ?? '', new Set([...granted, ...scopes]));
        if (asked.url.searchParams.get('prompt') === 'consent' || !scopes.every((s) => granted.has(s))) return false;
        // Asked before: approved on the user's behalf, the redirect answered at once.
        form.set('decision', 'approve');
        const decided = await sim.handle(
          new Request(new URL('/oauth/authorize', asked.url), {
            method: 'POST',
            body: form,
            headers: { cookie: String(asked.headers.cookie ?? ''), origin: asked.url.origin },
            redirect: 'manual',
          }),
        );
        answer.status = decided.status;
        answer.head = new Map([...decided.headers].map(([name, value]) => [name, [value]]));
        answer.body = Buffer.from(await decided.arrayBuffer());
        remembered++;
        return true;
      },
    },
    after() {
      expect(remembered, 'authorizations approved without asking').toBeGreaterThan(0);
    },
  },
  {
    // Google and Entra ID have no default scope: an authorization request without one is refused.
    name: 'an authorization request without scope refused invalid_scope (Google, Entra ID)',
    cite: 'L126: scope is optional; RFC 6749 §3.3: without scope the server MUST use a default or fail the request with invalid_scope',
    checks: ['grants.scope-default'],
    rewrite: {
      answer(asked, answer, sim) {
        const params = asked.url.searchParams;
        const redirectUri = params.get('redirect_uri');
        if (asked.url.pathname !== '/oauth/authorize' || params.has('scope') || !redirectUri) return false;
        // A client it knows, at its registered redirect URI (else that is refused first).
        if (!sim.store.applications.get(params.get('client_id') ?? '')?.redirectUris.includes(redirectUri))
          return false;
        const back = new URL(redirectUri);
        back.searchParams.set('error', 'invalid_scope');
        back.searchParams.set('error_description', 'Missing required parameter: scope');
        if (params.has('state')) back.searchParams.set('state', params.get('state')!);
        answer.status = 302;
        answer.head = new Map([['location', [back.href]]]);
        answer.body = Buffer.alloc(0);
        return true;
      },
    },
  },
  {
    // Okta and Keycloak revoke the access token they are given and leave its refresh token alive
    // (Google and the real service revoke the whole grant).
    name: 'revoking an access token leaves its refresh token working (Okta, Keycloak)',
    cite: 'L96: the revocation revokes the token it is given; RFC 7009 §2.1: revoking an access token MAY revoke its refresh token',
    checks: ['tokens.revoke-access-token', 'tokens.revoke-refresh-token', 'tokens.info-dead-token'],
    warns: ['REV-ACCESS-REVOKES-REFRESH'],
    rewrite: {
      request(asked, sim) {
        const token = formOf(asked).get('token') ?? '';
        const held = asked.url.pathname === '/oauth/revoke' ? sim.store.accessTokens.get(digest(token)) : undefined;
        const refresh = held?.refreshToken ? sim.store.refreshTokens.get(held.refreshToken) : undefined;
        if (!refresh || refresh.revokedAt !== null) return false;
        spared.push(refresh);
        return true;
      },
      answer() {
        // The simulator revoked the pair: its refresh token lives on, as the provider keeps it.
        for (const refresh of spared.splice(0)) refresh.revokedAt = null;
      },
    },
  },
];
