/**
 * The browser driver under a rate limit on its pages (review 13, items 2 and 3): a page refused
 * with 429 is waited out within the check's own time limit, as the HTTP target's requests are,
 * never read as a refusal of the configured user's credentials, and no page visit outlives its
 * check. One provider for the file; each row one browser run of one or two checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { HarnessError } from '../../suites/runner/errors.js';
import type { Check, CheckContext } from '../../suites/types.js';
import { checksWith, explain, PAGE_DRIVERS, rulesWith, runAgainst, startProvider, type Provider } from './provider.js';

const tooMany = (seconds: number) => ({
  status: 429,
  headers: { 'content-type': 'text/html', 'retry-after': String(seconds) },
  body: '<html><body><p>Too many requests: slow down</p></body></html>',
});

/**
 * after-sign-in: the page the sign-in's POST leads back to (the check's second GET of the
 * authorization endpoint) 429, once, Retry-After 1. every-page: each of the check's GETs 429,
 * Retry-After 35. leftover: the authorization of the check `leaver`, state `leftover`, 429, Retry-After 3.
 */
let mode: 'after-sign-in' | 'every-page' | 'leftover' = 'after-sign-in';
/** The check's GETs of the authorization endpoint (the start-up's premise aside), with their answer. */
const pages: string[] = [];

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider((method, url) => {
    const state = url.searchParams.get('state');
    if (method !== 'GET' || url.pathname !== '/oauth/authorize' || !state || state === 'start-up-premise')
      return undefined;
    const refused =
      mode === 'every-page' ||
      (mode === 'leftover' && state === 'leftover') ||
      (mode === 'after-sign-in' && pages.length === 1);
    pages.push(refused ? '429' : 'served');
    if (!refused) return undefined;
    return () => tooMany(mode === 'every-page' ? 35 : mode === 'leftover' ? 3 : 1);
  });
}, 60_000);

afterAll(async () => provider?.close());

const browser = { driver: { kind: 'browser' as const } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!PAGE_DRIVERS.includes('browser'))('browser driver, pages refused with 429', () => {
  it('a 429 answering the sign-in (its redirect back to the authorization) is waited out, not a refused password', async () => {
    mode = 'after-sign-in';
    pages.length = 0;
    const checks = allChecks().filter((c) => c.id === 'grants.code-single-use');
    const { code, report, stderr } = await runAgainst(provider, { runs: '1' }, checks, browser);
    const why = explain(report, stderr);
    // Before: errored "the provider refused the sign-in of the configured user (status 429): check
    // user.username and user.password", and no later check signed in.
    expect(pages, why).toEqual(['served', '429', 'served']);
    expect(checksWith(report, 'passed'), why).toEqual(['grants.code-single-use']);
    expect(code, why).toBe(0);
  }, 60_000);

  it('waits of Retry-After 35 count against the check time limit (60 s): given up within it with the rate-limit line', async () => {
    mode = 'every-page';
    pages.length = 0;
    const checks = allChecks().filter((c) => c.id === 'grants.code-single-use');
    const { report, stderr } = await runAgainst(provider, { runs: '1' }, checks, browser);
    const why = explain(report, stderr);
    // Before: the first wait moved the limit on by 35 s, so the second was granted too and the check ran ~72 s.
    expect(pages, why).toEqual(['429', '429']);
    expect(report.checks[0].message, why).toMatch(
      /^the target rate-limited this request \(GET \/oauth\/authorize\): 429 after 1 retry, waited 35 s; it asked to wait 35 s, longer than the \d+ s the harness waits; lower --rate/,
    );
    // What it would still wait is what the 60 s limit had left after the 35 s waited, at most.
    const left = /longer than the (\d+) s the harness waits/.exec(report.checks[0].message ?? '')?.[1];
    expect(Number(left), why).toBeLessThanOrEqual(60 - 35);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual([]);
  }, 120_000);

  it("a visit left running by its check's end is ended with it: nothing more is loaded during the next check", async () => {
    mode = 'leftover';
    pages.length = 0;
    const authorizeUrl = new URL('/oauth/authorize?response_type=code&client_id=x&state=leftover', provider.url).href;
    const leaver: Check = {
      id: 'grants.leaves-a-visit',
      suite: 'grants',
      title: 'Starts a page visit and ends before it',
      rules: ['GRANT-CODE-SINGLE-USE'],
      async run(t: CheckContext) {
        void t.driver.authorize(authorizeUrl, 'approve').catch(() => undefined);
        while (!pages.length) await sleep(50);
        throw new HarnessError('ended on purpose while its page waits out a 429');
      },
    };
    const next: Check = {
      id: 'grants.after-the-leaver',
      suite: 'grants',
      title: "Runs past the leftover visit's wait",
      rules: ['GRANT-CODE-SINGLE-USE'],
      async run() {
        await sleep(6_000);
        throw new HarnessError('ended on purpose');
      },
    };
    const { report, stderr } = await runAgainst(provider, { runs: '1' }, [leaver, next], browser);
    const why = explain(report, stderr);
    expect(checksWith(report, 'errored'), why).toEqual(['grants.after-the-leaver', 'grants.leaves-a-visit']);
    // Before: the visit waited its 3 s during the next check, then loaded the page again.
    expect(pages, why).toEqual(['429']);
  }, 60_000);
});
