/**
 * A key set of many keys held the run's one thread (red team, round 7): 90,000 Ed25519 keys, each
 * judged for small order on every read, took a check 107 s past its 60 s limit, and --deadline
 * and SIGINT with it. A set beyond MAX_KEYS now fails OIDC-JWKS saying how many keys it holds,
 * and none of them is read: here every one of them is the identity point, which a walk would
 * have failed as a key of small order instead.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { oidcChecks } from '../../suites/oidc/checks.js';
import type { Report } from '../../suites/report/model.js';
import { KEYS_PATH } from '../../suites/shared/oauth.js';
import { MAX_KEYS } from '../../suites/oidc/support.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator } from './collector.js';

/** The identity point of edwards25519 (y = 1): a key of small order, which anyone can sign for. */
const IDENTITY = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]).toString('base64url');
const EXTRA = MAX_KEYS + 50;

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-keys-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer) => {
    if (answer.status !== 200 || req.method !== 'GET' || !(req.url ?? '').startsWith(KEYS_PATH)) return answer;
    const { keys } = JSON.parse(answer.body.toString('utf8')) as { keys: unknown[] };
    const extra = Array.from({ length: EXTRA }, (_, i) => ({ kty: 'OKP', crv: 'Ed25519', x: IDENTITY, kid: `e${i}` }));
    return { ...answer, body: Buffer.from(JSON.stringify({ keys: [...keys, ...extra] })) };
  });
});

afterAll(() => front?.close());

it('a key set beyond MAX_KEYS fails OIDC-JWKS with its count, its keys unread, in every check that reads it', async () => {
  const file = join(dir, 'report.json');
  const checks = oidcChecks.filter((c) => ['oidc.jwks', 'oidc.id-token'].includes(c.id));
  await runCli({ config: front.config, seed: '5', runs: '1', report: `json=${file}` }, { checks });
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  expect(report.checks).toHaveLength(2);
  for (const check of report.checks) {
    expect([check.id, check.status, check.broken]).toEqual([check.id, 'failed', ['OIDC-JWKS']]);
    const said = /^GET (\S+) publishes (\d+) keys, more than the (\d+) a key set is judged with/.exec(
      check.message ?? '',
    );
    // The simulator's own keys and the ones added, counted.
    expect([said?.[1], Number(said?.[2]) > EXTRA, Number(said?.[3])]).toEqual([KEYS_PATH, true, MAX_KEYS]);
  }
}, 60_000);
