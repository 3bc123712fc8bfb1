/**
 * The browser driver in front of an authorization endpoint that takes the connection and never
 * answers (GET /oauth/authorize only; the simulator serves the rest). Before, each check that
 * drove the browser there waited out the page's own limit (30 s) again and errored "the browser
 * could not open /oauth/authorize: TimeoutError": the silence memo of the harness's requests
 * (hsilent) never saw a page load. Now the page's answer is held to --timeout as a request is, and
 * the silence is said once: the first check that meets it errors naming the endpoint, the later
 * ones are skipped naming that check, and the browser loads it no more; the device verification
 * page the same, for the device checks that approve on it. The sign-in's POST left unanswered
 * stays the way in, said once as such (not one silence a check, the password sent each time). The
 * authorization endpoint answering slowly, within --timeout, is played as before. One browser for
 * the file, a few cheap checks in process; counts of requests, never the wall clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { verdict } from '../../suites/report/verdict.js';
import type { Sim } from '../../simulator/types.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { explain, PAGE_DRIVERS, runAgainst } from './provider.js';

const TIMEOUT_MS = 2000;
/** How the requests at `where` are met: never answered, or answered after half of --timeout. */
let mode: 'silent' | 'slow' = 'silent';
/** The endpoint met so (the sign-in's POST in one row). */
let where = 'GET /oauth/authorize';
/** The requests there the browser sent (Chromium's User-Agent; the harness's own send none). */
let loads = 0;
let target: Loopback & { sim: Sim };
beforeAll(async () => {
  target = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', target.url);
    if (`${req.method} ${url.pathname}` !== where) return false;
    if (/Chrome/.test(req.headers['user-agent'] ?? '')) loads++;
    if (mode === 'silent') {
      req.resume();
      return true;
    }
    const slowly = new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS / 2));
    sendAnswer(
      res,
      slowly.then(() => simulatorAnswerTo(target.sim, req, url)),
    );
    return true;
  });
});
afterAll(async () => target?.close());

const AUTHORIZING = ['grants.pkce-valid-verifier', 'grants.state-unchanged', 'grants.code-single-use'];
const NOT_AUTHORIZING = 'grants.code-unknown';

/** A run of the checks `ids`, the browser driver playing the pages, with --timeout TIMEOUT_MS. */
async function run(ids: string[]) {
  loads = 0;
  const checks = allChecks().filter((c) => ids.includes(c.id));
  const done = await runAgainst(target, { runs: '1', timeout: String(TIMEOUT_MS) }, checks, {
    driver: { kind: 'browser' },
  });
  const byStatus = (status: string) => done.report.checks.filter((c) => c.status === status);
  return { ...done, loads, byStatus, why: explain(done.report, done.stderr) };
}

/**
 * Silent `where`, met by the browser in the checks `ids` (and none in NOT_AUTHORIZING): one errored
 * naming it, the others skipped naming that one, the page loaded once (not once a check), exit 2.
 */
async function expectSaidOnce(ids: string[]) {
  mode = 'silent';
  const r = await run([...ids, NOT_AUTHORIZING]);
  const errored = r.byStatus('errored');
  expect(errored.length, r.why).toBe(1);
  const [reporter] = errored;
  expect(ids, r.why).toContain(reporter.id);
  const said = `${where}: no answer within ${TIMEOUT_MS} ms`;
  expect(reporter.message, r.why).toBe(
    `the target did not answer, so nothing was seen: ${said}; ${where} is not asked again, and the later checks that need it are untested`,
  );
  expect(
    r.byStatus('skipped').map((c) => [c.id, c.message]),
    r.why,
  ).toEqual(
    ids
      .filter((id) => id !== reporter.id)
      .map((id) => [id, `${said}; not asked again (${reporter.id} reports it, once)`]),
  );
  expect(
    r.byStatus('passed').map((c) => c.id),
    r.why,
  ).toEqual([NOT_AUTHORIZING]);
  // One page load: not one per check (before: one per check, 30 s each).
  expect(r.loads, r.why).toBe(1);
  expect(r.stderr.match(/^the target does not answer .*$/gm), r.why).toEqual([
    `the target does not answer ${where} (no answer within ${TIMEOUT_MS} ms; ${reporter.id} reports it): ${where} is not asked again, and the later checks that need it are untested; if it is only slow, raise --timeout; bound the run with --deadline`,
  ]);
  expect(r.code, r.why).toBe(2);
  expect(verdict(r.report)).toBe('error');
}

describe.skipIf(!PAGE_DRIVERS.includes('browser'))('browser driver, a page load left unanswered', () => {
  it('is said once: one check errors on it, the other browser checks are skipped naming it, the page loaded once; exit 2', async () => {
    where = 'GET /oauth/authorize';
    await expectSaidOnce(AUTHORIZING);
  }, 180_000);

  it('the device verification page unanswered: the same, one device check errors, the others are skipped naming it, the page loaded once', async () => {
    where = 'GET /oauth/device';
    await expectSaidOnce(['device.single-use', 'device.token-response', 'device.client-bound']);
  }, 180_000);

  it("the sign-in's POST unanswered: said once as the way in, errored, the later sign-ins skipped, the password not sent again", async () => {
    mode = 'silent';
    where = 'POST /users/sign_in';
    const r = await run([...AUTHORIZING, NOT_AUTHORIZING]);
    const said = `POST /users/sign_in: no answer within ${TIMEOUT_MS} ms`;
    expect(
      r.byStatus('errored').map((c) => c.message),
      r.why,
    ).toEqual([`the harness could not complete this check: ${said}; what needs a signed-in user is not tested`]);
    expect(
      r.byStatus('skipped').map((c) => c.message),
      r.why,
    ).toEqual(
      AUTHORIZING.slice(1).map(
        () => `the provider's sign-in page could not be played earlier in this run (${said}); it is not tried again`,
      ),
    );
    expect(r.loads, r.why).toBe(1);
    expect(r.code, r.why).toBe(2);
  }, 180_000);

  it('answering slowly, within --timeout: the browser waits for each page, the check passes, exit 0', async () => {
    mode = 'slow';
    where = 'GET /oauth/authorize';
    const r = await run(['grants.code-single-use']);
    expect(
      r.byStatus('passed').map((c) => c.id),
      r.why,
    ).toEqual(['grants.code-single-use']);
    // The check's page loads there, each answered (none given up, none skipped).
    expect(r.loads, r.why).toBeGreaterThanOrEqual(1);
    expect(r.code, r.why).toBe(0);
  }, 120_000);
});
