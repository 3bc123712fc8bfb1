/**
 * A key set filling --max-body with the smallest keys (review 12: 2.7 million `{}` in 8 MB) cost
 * about a gigabyte of heap: beside the parsed set, jose's two copies of it (structuredClone, then
 * each key) for a token that one key had signed, and a held key's details made anew for each key.
 * Now jose is given only the keys verification may try, a held key's details are made once, and
 * a run of oidc.id-token against the flood fits in 300 MB of heap (it needs under 200).
 * The heap bound needs the build (npm test builds first).
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { KEYS_PATH } from '../../suites/shared/oauth.js';
import { judgeKeySet, keysToJudge, LEGACY_JWKS_PATH, localKeys } from '../../suites/oidc/support.js';
import { mayHaveSigned } from '../../suites/oidc/verify-jwt.js';
import type { CheckContext, FailureDetails } from '../../suites/types.js';
import { oidcChecks } from '../../suites/oidc/checks.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator } from './collector.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/** The review's flood: the keys that fill 8 MB, --max-body's default. */
const FLOOD = 2_700_000;
/** The heap the run may use (--max-old-space-size, MB): before, it ran out past 400. */
const HEAP_MB = 300;

const point = Buffer.alloc(32, 9).toString('base64url');
/** A point on P-256: oidc.jwks judges the points of the set within its budget (an off-curve one fails it). */
const { x, y } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
const ec = (kid: string): JWK => ({ kty: 'EC', crv: 'P-256', x, y, kid });

/** A check context that records the details of every assertion. */
function recording(details: Array<FailureDetails | undefined>): CheckContext {
  return {
    expect: (_ok: unknown, _message: string, d?: FailureDetails) => void details.push(d),
    note: () => undefined,
    fail: (message: string) => {
      throw new Error(message);
    },
  } as unknown as CheckContext;
}

describe('what a large key set costs to judge', () => {
  const set = { keys: [...Array.from({ length: 1000 }, (_, i) => ec(`k${i}`)), ec('signer'), ec('k3')] };

  it('jose is given the keys verification may try, not the set', () => {
    const keys = localKeys(recording([]), set, mayHaveSigned(set, { alg: 'ES256', kid: 'signer' }));
    expect(keys.jwks().keys.map((k) => k.kid)).toEqual(['signer']);
    // Two under one kid: both, for verifyJwt to try each.
    const twins = localKeys(recording([]), set, mayHaveSigned(set, { alg: 'ES256', kid: 'k3' }));
    expect(twins.jwks().keys.map((k) => k.kid)).toEqual(['k3', 'k3']);
  });

  it('the keys that may have signed are those of the alg: none for an alg no public key verifies', () => {
    const akp: JWK = { kty: 'AKP', alg: 'ML-DSA-44', kid: 'pq', pub: point };
    const odd = { keys: [{}, { kid: 'pq' }, akp, ec('pq')] };
    // jose verifies ML-DSA with an AKP key: now it is given that key.
    expect(mayHaveSigned(odd, { alg: 'ML-DSA-44', kid: 'pq' })).toEqual([akp]);
    // Not the keys that name no kty (before: a flood of `{}` for an HS256 token).
    expect(mayHaveSigned(odd, { alg: 'HS256' })).toEqual([]);
    expect(mayHaveSigned(odd, { alg: 'none', kid: 'pq' })).toEqual([]);
  });

  it("a held key's details are made once for the set, naming OIDC-JWKS", () => {
    const details: Array<FailureDetails | undefined> = [];
    judgeKeySet(recording(details), set);
    // The points the budget holds are judged (an eighth of a modulus each), the rest noted.
    expect(details).toHaveLength(keysToJudge(set.keys).size);
    expect(details.length).toBeGreaterThan(100);
    expect(new Set(details).size).toBe(1);
    expect(details[0]?.rules).toEqual(['OIDC-JWKS']);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'idp-jwks-flood-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;
let flood: Buffer | undefined;
/** When set, the key set and its alias served instead (the simulator serves no alias from 17.0). */
let sets: { keys: Buffer; legacy: Buffer } | undefined;

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer) => {
    const path = req.url ?? '';
    if (sets && req.method === 'GET' && (path.startsWith(KEYS_PATH) || path.startsWith(LEGACY_JWKS_PATH)))
      return { ...answer, status: 200, body: path.startsWith(KEYS_PATH) ? sets.keys : sets.legacy };
    if (answer.status !== 200 || req.method !== 'GET' || !path.startsWith(KEYS_PATH)) return answer;
    if (!flood) {
      // The simulator's own keys first (they verify its id_tokens), then the smallest keys there are.
      const own = JSON.stringify(JSON.parse(answer.body.toString('utf8'))).slice(0, -2);
      flood = Buffer.from(`${own},${'{},'.repeat(FLOOD - 1)}{}]}`);
    }
    return { ...answer, body: flood };
  });
});

afterAll(() => front?.close());

it(`oidc.id-token against a set of ${FLOOD} keys runs in ${HEAP_MB} MB of heap and passes`, async () => {
  const report = join(dir, 'report.json');
  const args = ['run', '--config', front.config, '--check', 'oidc.id-token', '--seed', '5', '--runs', '1'];
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, MAIN, ...args, '--report', `json=${report}`],
    {
      env: { ...process.env, NO_COLOR: '1', CI: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  );
  // Out of heap, V8 aborts the process.
  expect([code, signal], err.slice(-500)).toEqual([0, null]);
  const [check] = (JSON.parse(readFileSync(report, 'utf8')) as Report).checks;
  expect([check.id, check.status]).toEqual(['oidc.id-token', 'passed']);
}, 120_000);

/**
 * oidc.legacy-jwks-alias said a difference by the kid of every key of both sets: for a flood, two
 * arrays of millions, and their first kids said nothing of a difference further on. Now: the counts
 * and the first key that differs.
 */
it('an alias serving another key set is said by the first key that differs, not by every kid', async () => {
  const keys = Array.from({ length: 30 }, (_, i) => ec(`k${i}`));
  sets = {
    keys: Buffer.from(JSON.stringify({ keys })),
    legacy: Buffer.from(JSON.stringify({ keys: [...keys, ec('extra')] })),
  };
  try {
    const file = join(dir, 'alias.json');
    const checks = oidcChecks.filter((c) => c.id === 'oidc.legacy-jwks-alias');
    await runCli({ config: front.config, seed: '5', runs: '1', release: '16.11', report: `json=${file}` }, { checks });
    const [check] = (JSON.parse(readFileSync(file, 'utf8')) as Report).checks;
    expect([check.status, check.message]).toEqual([
      'failed',
      '/-/jwks must serve the key set of /oauth/discovery/keys (keys: 30; legacyKeys: 31; at: 30; kid: null; legacyKid: extra)',
    ]);
  } finally {
    sets = undefined;
  }
}, 60_000);
