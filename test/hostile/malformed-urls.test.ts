/**
 * URLs the target hands out that are no URLs (`http://[x`): a moved project's Location, a Link's
 * target, the sign-in redirect's Location, a form's action. Each was given to `new URL` as it came,
 * which threw, and the check ended "crashed (a defect of the harness, not a verdict on the
 * target)": the target's malformed answer blamed on the harness, no rule judged. Now each is the
 * failure of the rule the URL belongs to, or, for a page the form driver cannot play, the
 * driver's trouble said as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { CheckResult, Report } from '../../suites/report/model.js';
import { runCli } from '../suites/loopback.js';
import { startProxy } from './collector.js';

const BAD = 'http://[x';
const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-urls-'));
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
/** What the proxy breaks in the simulator's answers. */
let mode: 'location' | 'link' | 'action' = 'location';

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (_req, answer) => {
    const headers = answer.headers.map(([name, value]): [string, string] =>
      mode === 'location' && /^location$/i.test(name)
        ? [name, BAD]
        : mode === 'link' && /^link$/i.test(name)
          ? [name, `<${BAD}>; rel="next"`]
          : [name, value],
    );
    const html = answer.headers.some(([n, v]) => /^content-type$/i.test(n) && /html/i.test(v));
    const body =
      mode === 'action' && html
        ? Buffer.from(answer.body.toString('utf8').replace(/action="[^"]*"/g, `action="${BAD}"`))
        : answer.body;
    return { ...answer, headers, body };
  });
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  writeFileSync(join(dir, 'target.json'), JSON.stringify(targetConfig(sim, proxy.url)));
  writeFileSync(join(dir, 'form.json'), JSON.stringify({ ...targetConfig(sim, proxy.url), driver: { kind: 'form' } }));
});

afterAll(async () => {
  await proxy?.close();
  await served?.close();
});

async function check(id: string, config = 'target.json'): Promise<CheckResult> {
  const file = join(dir, `${id}.json`);
  await runCli({ config: join(dir, config), check: id, seed: '19', runs: '2', report: `json=${file}` });
  const [result] = (JSON.parse(readFileSync(file, 'utf8')) as Report).checks;
  expect(result.message).not.toMatch(/crashed/);
  return result;
}

describe('a URL of the target that is no URL', () => {
  it("a moved project's Location fails ENC-MOVED-REDIRECT", async () => {
    mode = 'location';
    const result = await check('encoding.moved-path-redirect');
    expect([result.status, result.broken]).toEqual(['failed', ['ENC-MOVED-REDIRECT']]);
    expect(result.message).toMatch(/Location .* is not a URL/);
  }, 120_000);

  it("the sign-in redirect's Location breaks GRANT-SIGN-IN-REQUIRED (a should: warned)", async () => {
    mode = 'location';
    const result = await check('grants.sign-in-required');
    expect([result.status, result.broken]).toEqual(['warned', ['GRANT-SIGN-IN-REQUIRED']]);
    expect(result.message).toMatch(/Location is not a URL/);
  }, 120_000);

  it("a Link's target fails PAG-LINK-HEADER", async () => {
    mode = 'link';
    const result = await check('pagination.offset-rows');
    expect(result.status).toBe('failed');
    expect(result.broken).toContain('PAG-LINK-HEADER');
    expect(result.message).toMatch(/is not a URL/);
  }, 120_000);

  it("a form's action, for the form driver, is the driver's trouble: errored, no rule blamed", async () => {
    mode = 'action';
    const result = await check('grants.code-single-use', 'form.json');
    expect(result.status).toBe('errored');
    expect(result.message).toMatch(/action .* is not a URL/);
  }, 120_000);
});
