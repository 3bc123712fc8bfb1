/**
 * A key set whose RSA key has the public exponent 1 proves nothing: WebCrypto (so jose) imports it,
 * and a "signature" that is the padded digest itself, which anyone computes without a key,
 * verifies. A proxy in front of the simulator serves such a key and re-signs every id_token that
 * way; the harness passed OIDC-JWKS and OIDC-ID-TOKEN-SIGNATURE for tokens anyone could forge.
 * Now the key set fails OIDC-JWKS (RFC 8017 §3.1: an odd e, 3 ≤ e < n), and no signature is read
 * as proof against it.
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

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-key-'));
const modulus = randomBytes(256);
modulus[0] = 0xff;
modulus[255] |= 1;
const KEY = { kty: 'RSA', kid: 'e1', use: 'sig', alg: 'RS256', n: modulus.toString('base64url'), e: 'AQ' };
/** DigestInfo of SHA-256 (RFC 8017 §9.2, note 1). */
const SHA256_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** The id_token's claims under a header naming KEY, "signed" with e = 1: the EMSA-PKCS1-v1_5 encoding itself. */
function forged(idToken: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: KEY.kid, typ: 'JWT' })).toString('base64url');
  const input = `${header}.${idToken.split('.')[1]}`;
  const t = Buffer.concat([SHA256_INFO, createHash('sha256').update(input).digest()]);
  const encoded = Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(256 - 3 - t.length, 0xff), Buffer.from([0]), t]);
  return `${input}.${encoded.toString('base64url')}`;
}

let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (req, answer) => {
    const path = req.url ?? '';
    if (answer.status !== 200) return answer;
    if (req.method === 'GET' && path.startsWith(KEYS_PATH))
      return { ...answer, body: Buffer.from(JSON.stringify({ keys: [KEY] })) };
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

describe('an RSA key with the public exponent 1', () => {
  it('fails OIDC-JWKS, and an id_token "signed" for it passes no signature rule', async () => {
    const file = join(dir, 'report.json');
    const checks = oidcChecks.filter((c) => ['oidc.jwks', 'oidc.id-token'].includes(c.id));
    await runCli({ config: join(dir, 'target.json'), seed: '5', runs: '1', report: `json=${file}` }, { checks });
    const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    const verdict = (id: string) => report.rules.find((r) => r.id === id)?.status;
    for (const check of report.checks) {
      expect([check.id, check.status, check.broken]).toEqual([check.id, 'failed', ['OIDC-JWKS']]);
      expect(check.message).toMatch(/public exponent is not odd, at least 3 and below n \(RFC 8017 §3\.1\)/);
    }
    expect(report.checks).toHaveLength(2);
    expect(verdict('OIDC-JWKS')).toBe('failed');
    expect(verdict('OIDC-ID-TOKEN-SIGNATURE')).not.toBe('passed');
  }, 120_000);
});
