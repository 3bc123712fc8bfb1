/**
 * JSON of the wrong shape where a record is expected: a token response that is `null`, a page of
 * a collection whose rows are `null` (projects, a project's issues), a key set with a `null` among
 * its keys. Each was read as an object (`body.access_token`, `item.id`, `key.use`), which threw,
 * and the check ended "crashed (a defect of the harness, not a verdict on the target)": fourteen
 * checks for the token response alone. Now each is the failure of the rule the answer breaks. A
 * proxy in front of the simulator reshapes the chosen answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckResult, Report } from '../../suites/report/model.js';
import { KEYS_PATH } from '../../suites/shared/oauth.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator } from './collector.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-shapes-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer) => {
    const path = req.url ?? '';
    if (answer.status !== 200) return answer;
    if (req.method === 'POST' && path.startsWith('/oauth/token')) return { ...answer, body: Buffer.from('null') };
    if (req.method === 'GET' && /^\/api\/v4\/projects(\/[^/]+\/issues)?(\?|$)/.test(path)) {
      const rows = JSON.parse(answer.body.toString('utf8')) as unknown[];
      return { ...answer, body: Buffer.from(JSON.stringify(rows.map(() => null))) };
    }
    if (req.method === 'GET' && path.startsWith(KEYS_PATH)) {
      const set = JSON.parse(answer.body.toString('utf8')) as { keys: unknown[] };
      return { ...answer, body: Buffer.from(JSON.stringify({ keys: [null, ...set.keys] })) };
    }
    return answer;
  });
});

afterAll(() => front?.close());

async function check(id: string): Promise<CheckResult> {
  const file = join(dir, `${id}.json`);
  await runCli({ config: front.config, check: id, seed: '19', runs: '2', report: `json=${file}` });
  const [result] = (JSON.parse(readFileSync(file, 'utf8')) as Report).checks;
  expect(result.message).not.toMatch(/crashed/);
  return result;
}

describe('JSON of the wrong shape where a record is expected', () => {
  it('a token response that is null fails TOK-ACCESS-TOKEN', async () => {
    const result = await check('oidc.userinfo');
    expect(result.status).toBe('failed');
    expect(result.broken).toContain('TOK-ACCESS-TOKEN');
    expect(result.message).toMatch(/the token response has no access_token/);
  }, 120_000);

  it('a page whose rows are null fails the walk, saying so', async () => {
    const result = await check('pagination.offset-rows');
    // The walk's rule, a should: warned.
    expect([result.status, result.broken]).toEqual(['warned', ['PAG-OFFSET-ROWS']]);
    expect(result.message).toMatch(/^first page of \w+ answered an array whose rows are not all JSON objects/);
  }, 120_000);

  it('a key set with a null among its keys fails OIDC-JWKS, saying so', async () => {
    const result = await check('oidc.jwks');
    expect([result.status, result.broken]).toEqual(['failed', ['OIDC-JWKS']]);
    expect(result.message).toMatch(/^the keys of GET \/\S+ answered an array whose rows are not all JSON objects/);
  }, 120_000);

  it("a project's issues whose rows are null fail the premise of the encoding check that reads them", async () => {
    const result = await check('encoding.issue-iid-in-path');
    expect([result.status, result.broken]).toEqual(['failed', ['ENC-ID-AND-IID']]);
    expect(result.message).toMatch(
      /^the fixture project's issues answered an array whose rows are not all JSON objects/,
    );
  }, 120_000);
});
