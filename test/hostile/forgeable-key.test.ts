/**
 * A key set whose key verifies what nobody signed proves nothing: WebCrypto (so jose) imports an
 * RSA key with the public exponent 1, whose "signature" is the padded digest itself, and an
 * Ed25519 key of small order (here the identity), for which R = the identity and S = 0 verify any
 * message. A proxy in front of the simulator serves such a key and re-signs every id_token that
 * way: the harness passed OIDC-JWKS and OIDC-ID-TOKEN-SIGNATURE for tokens anyone could forge.
 * Now the key set fails OIDC-JWKS, and no signature is read as proof against it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { oidcChecks } from '../../suites/oidc/checks.js';
import type { Report } from '../../suites/report/model.js';
import { KEYS_PATH } from '../../suites/shared/oauth.js';
import { runCli } from '../suites/loopback.js';
import { startProxy } from './collector.js';

const b64 = (bytes: Buffer) => bytes.toString('base64url');
const modulus = randomBytes(256);
modulus[0] = 0xff;
modulus[255] |= 1;
/** The identity point of edwards25519 (y = 1), as RFC 8032 §5.1.2 encodes it. */
const IDENTITY = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]);
/** DigestInfo of SHA-256 (RFC 8017 §9.2, note 1). */
const SHA256_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

interface Forgery {
  key: { kid: string; alg: string } & Record<string, string>;
  sign(input: string): Buffer;
}

/** Each forgeable key with the signature anyone can make for it. */
const FORGERIES: Record<string, Forgery> = {
  'RSA, e = 1': {
    key: { kty: 'RSA', kid: 'forged', use: 'sig', alg: 'RS256', n: b64(modulus), e: 'AQ' },
    sign(input: string) {
      const t = Buffer.concat([SHA256_INFO, createHash('sha256').update(input).digest()]);
      return Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(256 - 3 - t.length, 0xff), Buffer.from([0]), t]);
    },
  },
  'Ed25519, the identity': {
    key: { kty: 'OKP', kid: 'forged', use: 'sig', alg: 'EdDSA', crv: 'Ed25519', x: b64(IDENTITY) },
    sign: () => Buffer.concat([IDENTITY, Buffer.alloc(32)]),
  },
};
let forgery = FORGERIES['RSA, e = 1'];

/** The id_token's claims under a header naming the forged key, with the signature anyone can make. */
function forged(idToken: string): string {
  const header = b64(Buffer.from(JSON.stringify({ alg: forgery.key.alg, kid: forgery.key.kid, typ: 'JWT' })));
  const input = `${header}.${idToken.split('.')[1]}`;
  return `${input}.${b64(forgery.sign(input))}`;
}

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-key-'));
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (req, answer) => {
    const path = req.url ?? '';
    if (answer.status !== 200) return answer;
    if (req.method === 'GET' && path.startsWith(KEYS_PATH))
      return { ...answer, body: Buffer.from(JSON.stringify({ keys: [forgery.key] })) };
    if (req.method === 'POST' && path.startsWith('/oauth/token')) {
      const body = JSON.parse(answer.body.toString('utf8')) as { id_token?: string };
      if (body.id_token)
        return { ...answer, body: Buffer.from(JSON.stringify({ ...body, id_token: forged(body.id_token) })) };
    }
    return answer;
  });
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  writeFileSync(join(dir, 'target.json'), JSON.stringify(targetConfig(sim, proxy.url)));
});

afterAll(async () => {
  await proxy?.close();
  await served?.close();
});

describe('a key that verifies what nobody signed', () => {
  it.each(Object.keys(FORGERIES))(
    '(%s) fails OIDC-JWKS, and an id_token "signed" for it passes no signature rule',
    async (name) => {
      forgery = FORGERIES[name];
      const file = join(dir, 'report.json');
      const checks = oidcChecks.filter((c) => ['oidc.jwks', 'oidc.id-token'].includes(c.id));
      await runCli({ config: join(dir, 'target.json'), seed: '5', runs: '1', report: `json=${file}` }, { checks });
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      expect(report.checks).toHaveLength(2);
      for (const check of report.checks) {
        expect([check.id, check.status, check.broken]).toEqual([check.id, 'failed', ['OIDC-JWKS']]);
        expect(check.message).toMatch(/^the key set publishes an? (RSA|Ed25519) key .*anyone can/);
      }
      const verdict = (id: string) => report.rules.find((r) => r.id === id)?.status;
      expect(verdict('OIDC-JWKS')).toBe('failed');
      expect(verdict('OIDC-ID-TOKEN-SIGNATURE')).not.toBe('passed');
    },
    120_000,
  );
});
