/**
 * One bad key in the key set is one cause: oidc.jwks, which owns OIDC-JWKS, fails it, once (review
 * 29, after defect 3). A check that verifies a token with the set takes it as its premise: with the
 * key its token names usable it judges its own rules; with that key the bad one, it is untested,
 * naming oidc.jwks. Before, oidc.id-token failed OIDC-JWKS as well for a forgeable key anywhere in
 * the set, or for the key its token names being too short; and a key no verifier may use (a
 * 1024-bit modulus, an EC point off its curve) that no token named passed OIDC-JWKS.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blamed, jsonOf, proxyForTests, runRewritten, setJson, type Rewrite } from '../independent/oauth-proxy.js';

type Key = Record<string, unknown>;

/** The simulator's key set as `change` makes it, its id_tokens as signed. */
const keySet =
  (change: (keys: Key[]) => Key[]): Rewrite['answer'] =>
  (asked, answer) => {
    const keys = asked.url.pathname === '/oauth/discovery/keys' ? jsonOf(answer)?.keys : undefined;
    if (!Array.isArray(keys) || asked.method !== 'GET') return false;
    setJson(answer, { keys: change(keys as Key[]) });
    return true;
  };

const publicJwk = (type: 'rsa' | 'ec', bits = 2048): Key =>
  (type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: bits }).publicKey
    : generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey
  ).export({ format: 'jwk' });

const short = { ...publicJwk('rsa', 1024), kid: 'beside', use: 'sig', alg: 'RS256' };

/** A 1024-bit key published as `ui`, and userinfo answered as a JWT of its claims signed with it, by hand (jose refuses). */
const userinfoKey = generateKeyPairSync('rsa', { modulusLength: 1024 });
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const signedWithShortKey: Rewrite['answer'] = (asked, answer) => {
  const keys = asked.url.pathname === '/oauth/discovery/keys' ? jsonOf(answer)?.keys : undefined;
  if (Array.isArray(keys)) {
    const jwk = userinfoKey.publicKey.export({ format: 'jwk' });
    setJson(answer, { keys: [...(keys as Key[]), { ...jwk, kid: 'ui', use: 'sig', alg: 'RS256' }] });
    return true;
  }
  const claims = asked.url.pathname === '/oauth/userinfo' && answer.status === 200 ? jsonOf(answer) : undefined;
  if (!claims) return false;
  const input = `${part({ alg: 'RS256', kid: 'ui' })}.${part(claims)}`;
  answer.body = Buffer.from(
    `${input}.${sign('sha256', Buffer.from(input), userinfoKey.privateKey).toString('base64url')}`,
  );
  answer.head.set('content-type', ['application/jwt']);
  return true;
};
const ec = publicJwk('ec');
const offCurve = { ...ec, y: ec.x, kid: 'beside', use: 'sig', alg: 'ES256' };

/** The signing key (the first) with its modulus cut to its first 128 octets: 1024 bits. */
const cut = (key: Key): Key => ({
  ...key,
  n: Buffer.from(key.n as string, 'base64url')
    .subarray(0, 128)
    .toString('base64url'),
});

describe('one bad key in the key set fails OIDC-JWKS once, by oidc.jwks', () => {
  const proxy = proxyForTests();

  async function run(answer: Rewrite['answer'], checks: string[]) {
    const { code, report, why } = await runRewritten(proxy(), { answer }, 'jwks-blame', checks);
    expect(
      blamed(report).map((v) => `${v.check} ${v.rule}`),
      why,
    ).toEqual(['oidc.jwks OIDC-JWKS']);
    expect(code, why).toBe(1);
    const status = (id: string) => report.checks.find((c) => c.id === id);
    return { status, why };
  }

  it.each([
    ['an RSA key with e = 1', (keys: Key[]) => [...keys, { ...keys[0], kid: 'beside', e: 'AQ' }]],
    ['a 1024-bit RSA key', (keys: Key[]) => [...keys, short]],
    ['an EC key off its curve', (keys: Key[]) => [...keys, offCurve]],
  ])(
    '%s beside the signing key: oidc.id-token, whose key is sound, judges its own rules',
    async (_what, change) => {
      const { status, why } = await run(keySet(change), ['oidc.jwks', 'oidc.id-token', 'oidc.userinfo']);
      expect(status('oidc.id-token')?.status, why).toBe('passed');
      expect(status('oidc.userinfo')?.status, why).toBe('passed');
    },
    120_000,
  );

  it.each([
    ['published with e = 1: anyone could have signed', (keys: Key[]) => [{ ...keys[0], e: 'AQ' }, ...keys.slice(1)]],
    ['cut to 1024 bits: no verifier may use it', (keys: Key[]) => [cut(keys[0]), ...keys.slice(1)]],
  ])(
    'the key the id_token names %s: oidc.id-token and oidc.userinfo are untested, naming oidc.jwks',
    async (_what, change) => {
      const { status, why } = await run(keySet(change), ['oidc.jwks', 'oidc.id-token', 'oidc.userinfo']);
      for (const id of ['oidc.id-token', 'oidc.userinfo']) {
        expect(status(id)?.status, why).toBe('skipped');
        expect(status(id)?.message, why).toMatch(/\(oidc\.jwks reports it on OIDC-JWKS\)$/);
      }
    },
    120_000,
  );

  it('userinfo signed with a 1024-bit key of the set: oidc.userinfo is untested, naming oidc.jwks', async () => {
    const { status, why } = await run(signedWithShortKey, ['oidc.jwks', 'oidc.id-token', 'oidc.userinfo']);
    expect(status('oidc.id-token')?.status, why).toBe('passed');
    expect(status('oidc.userinfo')?.status, why).toBe('skipped');
    expect(status('oidc.userinfo')?.message, why).toMatch(/\(oidc\.jwks reports it on OIDC-JWKS\)$/);
  }, 120_000);

  it('a key set answered 500: the /-/jwks checks are untested, naming oidc.jwks', async () => {
    const down: Rewrite['answer'] = (asked, answer) => {
      if (asked.url.pathname !== '/oauth/discovery/keys') return false;
      answer.status = 500;
      setJson(answer, { error: 'server_error' });
      return true;
    };
    const { status, why } = await run(down, ['oidc.jwks', 'oidc.legacy-jwks-alias', 'oidc.legacy-jwks-removed']);
    for (const id of ['oidc.legacy-jwks-alias', 'oidc.legacy-jwks-removed'])
      expect(status(id)?.status, why).toBe('skipped');
  }, 120_000);
});
