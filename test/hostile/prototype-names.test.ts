/**
 * Names a target chooses that every object already has: `constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf`. The harness looked what the target named up in plain objects, and
 * found Object.prototype's members there: a Link of rel="constructor" beside the pagination links
 * made the Link reader push onto the Object function (the walk "crashed (a defect of the
 * harness)"); a token response with a member `constructor` was blamed on a rule that is the Object
 * function, so on every rule of its check; a Content-Encoding `constructor` was "decoded" (Object
 * of the body is the body) and the coding dropped; a header named `__proto__` vanished from the
 * report and crashed the diff's shape of the answer; `&constructor;` in a page was read as the
 * Object function's source. Now what the target names is looked up among a table's own entries
 * only (suites/shared/own.ts), and is a key wherever it is kept. The runs go through a proxy in
 * front of the simulator that adds the names to its answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rules } from '../../spec/index.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import { decodeContent } from '../../suites/target/content-coding.js';
import { decodeEntities } from '../../suites/drivers/html.js';
import { redactHeaders } from '../../suites/report/redact.js';
import { shapeOf } from '../../suites/diff/shape.js';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import { runCli } from '../suites/loopback.js';
import { proxiedSimulator } from './collector.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-proto-'));
let front: Awaited<ReturnType<typeof proxiedSimulator>>;

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer) => {
    const path = req.url ?? '';
    if (answer.status !== 200) return answer;
    // Members of a JSON object, written as text: JSON.stringify cannot write an own __proto__.
    if (req.method === 'POST' && path.startsWith('/oauth/token')) {
      const members = NAMES.map((n) => `"${n}":{"refresh_token":"x"}`).join(',');
      return { ...answer, body: Buffer.from(answer.body.toString('utf8').replace(/^\{/, `{${members},`)) };
    }
    if (req.method === 'GET' && path.startsWith('/api/v4/')) {
      const headers = answer.headers.map(([name, value]): [string, string] =>
        name.toLowerCase() === 'link'
          ? [name, [value, ...NAMES.map((n) => `<${front.proxy.url}/api/v4/${n}>; rel="${n}"`)].join(', ')]
          : [name, value],
      );
      return { ...answer, headers };
    }
    return answer;
  });
});

afterAll(() => front?.close());

/** The built command (npm test builds first). */
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const RULES = new Set<string>(rules().map((r) => r.id));

async function run(check: string, release?: string): Promise<CheckResult[]> {
  const file = join(dir, `${check}.json`);
  await runCli({
    config: front.config,
    check,
    seed: '23',
    runs: '2',
    report: `json=${file}`,
    ...(release ? { release } : {}),
  });
  const { checks } = JSON.parse(readFileSync(file, 'utf8')) as Report;
  for (const result of checks) {
    expect(result.message ?? '').not.toMatch(/crashed|native code|\[object Object\]/);
    for (const id of [...result.rules, ...(result.broken ?? [])]) expect(RULES.has(id), id).toBe(true);
  }
  return checks;
}

describe('names of the target that every object has', () => {
  it('a Link of rel="constructor" or "__proto__" beside the pages is another relation: the walk is judged', async () => {
    const [result] = await run('pagination.offset-headers');
    expect([result.status, result.message]).toEqual(['passed', undefined]);
  }, 120_000);

  it('token response members named constructor, __proto__, ... are extra members, blamed on the shape rule', async () => {
    const [result] = await run('grants.password-response', '18.0');
    expect(result.status).toBe('failed');
    expect(result.broken).toEqual(['TOK-PASSWORD-RESPONSE-FIELDS']);
    for (const name of NAMES) expect(result.message).toContain(`carries ${name}, which it must not`);
  }, 120_000);
});

describe('every table the target names a key of', () => {
  it('a content coding named after a member of every object is one the harness cannot undo', () => {
    const body = Buffer.from('{"a":1}');
    for (const name of NAMES)
      expect(decodeContent(name, body, 1024)).toEqual({ ok: false, why: 'unknown', coding: name.toLowerCase() });
  });

  it('an entity of a page named so stays as written', () => {
    for (const name of NAMES) expect(decodeEntities(`a&${name};b`)).toBe(`a&${name};b`);
  });

  it('a header named so stays a header of the report, and of the diff’s shape', () => {
    const headers = Object.fromEntries(NAMES.map((n) => [n, 'v']));
    expect(Object.keys(redactHeaders(headers)).sort()).toEqual([...NAMES].sort());
    const exchange = {
      request: { method: 'GET', url: 'http://127.0.0.1/api/v4/projects', headers: {} },
      response: { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: '[]' },
    };
    expect(shapeOf(exchange).headers).toEqual({ 'content-type': 'application/json' });
  });

  it('a grant_type named so is no grant the proxy judges a token answer for', () => {
    const observed = (grant_type: string): Observed => ({
      method: 'POST',
      target: '/oauth/token',
      requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      requestBody: Buffer.from(new URLSearchParams({ grant_type }).toString()),
      status: 200,
      responseHeaders: new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' }),
      responseBody: Buffer.from(JSON.stringify({ access_token: 'a'.repeat(40), token_type: 'bearer' })),
      at: 1_000,
    });
    const rulesOf = (grant: string) => judgeExchange(observed(grant), createFlows()).map((v) => v.rule);
    for (const name of NAMES) expect(rulesOf(name)).toEqual(rulesOf('no_such_grant'));
  });
});

describe('a command named after a member of every object', () => {
  it('is an unknown command: one line, exit 2 (it was an internal error, exit 70)', () => {
    for (const name of ['constructor', 'toString']) {
      const r = spawnSync(process.execPath, [MAIN, name], { encoding: 'utf8' });
      expect([r.status, r.stderr]).toEqual([2, `idp-conformance: unknown command '${name}'\n`]);
    }
  });
});
