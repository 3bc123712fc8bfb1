/**
 * Loopback providers that behave like real ones the simulator does not imitate: the simulator
 * over HTTP with some requests answered another way (endpoints a deployment lacks, a stricter
 * authorization endpoint, an introspection endpoint). Each answer is one small function; a run of
 * `idp-conformance run` against it gives a report whose per-rule outcomes a test can assert.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun, type RunFlags } from '../../cli/run.js';
import { DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import { allChecks } from '../../suites/index.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim, SimulatorOptions } from '../../simulator/types.js';
import type { Report } from '../../suites/report/model.js';
import type { Check, TargetConfig } from '../../suites/types.js';
import { expect } from 'vitest';
import { bodyOf, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Which requests the provider answers itself: given the method and URL, the answer (from the
 * request body and the simulator behind), or undefined to let the simulator answer as it does.
 */
export type Deviation = (
  method: string,
  url: URL,
  sim: Sim,
) => ((body: string, sim: Sim) => Reply | Promise<Reply>) | undefined;

export interface Provider extends Loopback {
  sim: Sim;
  /** Requests the provider answered itself, `METHOD /path`, in order. */
  answered: string[];
}

export const notFound: Reply = { status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' };

/** The simulator, with `deviation` answering the requests it chooses. */
export async function startProvider(deviation: Deviation, options: SimulatorOptions = {}): Promise<Provider> {
  const answered: string[] = [];
  let base = '';
  const served = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const own = deviation(req.method ?? 'GET', url, served.sim);
    if (!own) return false;
    answered.push(`${req.method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void Promise.resolve(own(Buffer.concat(chunks).toString('utf8'), served.sim))
        .catch((error: Error): Reply => ({ status: 502, body: `provider: ${error.message}` }))
        .then(({ status, headers = {}, body = '' }) => {
          res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        });
    });
    return true;
  }, options);
  base = served.url;
  return { ...served, answered };
}

/**
 * `idp-conformance run` against the provider with its seeded target config; the report as JSON.
 * `checks` replaces the catalogue of checks (a test's own, or every check wrapped).
 */
export async function runAgainst(
  provider: Pick<Provider, 'sim' | 'url'>,
  flags: RunFlags = {},
  checks?: Check[],
  /** Set over the seeded config (`trustedOrigins`…). */
  extra: Partial<TargetConfig> = {},
): Promise<{ code: number; report: Report; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'idp-provider-'));
  const config = join(dir, 'target.json');
  writeFileSync(config, JSON.stringify({ ...targetConfig(provider.sim, provider.url), ...extra }));
  const file = join(dir, 'report.json');
  let stderr = '';
  const code = await executeRun(
    { config, seed: '20261125', runs: '3', report: `json=${file}`, ...flags },
    { out: () => undefined, err: (t) => void (stderr += t), ...(checks ? { checks: () => checks } : {}) },
    {},
  );
  return { code, report: JSON.parse(readFileSync(file, 'utf8')) as Report, stderr };
}

/** Is there a Chromium for the browser driver (IDP_CHROMIUM, else Debian's)? */
export const HAS_CHROMIUM = existsSync(process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM);

/** The drivers that play a person's pages: the form driver, and the browser driver where Chromium is. */
export const PAGE_DRIVERS: ReadonlyArray<'form' | 'browser'> = [
  'form',
  ...(HAS_CHROMIUM ? (['browser'] as const) : []),
];

/** runAgainst with the checks `ids` only, one run unless `flags` say otherwise. */
export const runChecks = (
  provider: Pick<Provider, 'sim' | 'url'>,
  ids: readonly string[],
  flags: RunFlags = {},
  extra: Partial<TargetConfig> = {},
) =>
  runAgainst(
    provider,
    { runs: '1', ...flags },
    allChecks().filter((c) => ids.includes(c.id)),
    extra,
  );

/** runChecks, one run, `kind` playing the pages with its own defaults. */
export const runWithDriver = (
  provider: Pick<Provider, 'sim' | 'url'>,
  kind: 'form' | 'browser',
  ids: readonly string[],
  extra: Partial<TargetConfig> = {},
) => runChecks(provider, ids, {}, { ...extra, driver: { kind } });

/** A failing expectation's text: the end of stderr and every check's verdict and message. */
export const explain = (report: Report, stderr: string) =>
  `${stderr.slice(-1500)}\n${report.checks.map((c) => `${c.status} ${c.id}: ${c.message ?? ''}`).join('\n')}`;

/** The rules of each status, sorted: what a reader of the report sees per rule. */
export function rulesWith(report: Report, ...statuses: string[]): string[] {
  return report.rules
    .filter((r) => statuses.includes(r.status))
    .map((r) => r.id)
    .sort();
}

/** The checks of each status, sorted. */
export function checksWith(report: Report, ...statuses: string[]): string[] {
  return report.checks
    .filter((c) => statuses.includes(c.status))
    .map((c) => c.id)
    .sort();
}

/** `check: message` of every errored check, for a failing expectation's text. */
export const erroredText = (report: Report) =>
  report.checks
    .filter((c) => c.status === 'errored')
    .map((c) => `${c.id}: ${c.message}`)
    .join('\n');

export const REFUSED =
  /^the harness could not complete this check: the provider refused the sign-in of the configured user \(/;
export const NOT_AGAIN =
  /^the provider refused the configured user's sign-in earlier in this run \(.+\); it is not tried again$/;

/**
 * A refused sign-in, said once: the check that met it errored with the reason, none failed or
 * warned, and later checks that needed a signed-in user skipped for it. `said` gives the two
 * sentences of another missing premise of the sign-in (one that needs a person).
 */
export function expectOneRefusal(json: Report, why: string, said = { first: REFUSED, later: NOT_AGAIN }) {
  const by = (status: string) => json.checks.filter((c) => c.status === status);
  expect(
    by('failed').map((c) => `${c.id}: ${c.message}`),
    why,
  ).toEqual([]);
  expect(
    by('warned').map((c) => `${c.id}: ${c.message}`),
    why,
  ).toEqual([]);
  const errored = by('errored');
  expect(
    errored.map((c) => c.message),
    why,
  ).toHaveLength(1);
  expect(errored[0].message, why).toMatch(said.first);
  const skippedForIt = by('skipped').filter((c) => said.later.test(c.message ?? ''));
  expect(skippedForIt.length, why).toBeGreaterThan(0);
}

type Run = Awaited<ReturnType<typeof runAgainst>>;

/** Every check passed and the run exited 0; `why`, for the caller's own expectations. */
export function expectAllPassed({ code, report, stderr }: Run): string {
  const why = explain(report, stderr);
  expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual([]);
  expect(code, why).toBe(0);
  return why;
}

/**
 * A missing premise said once (a sign-in or consent elsewhere): nothing failed or warned, one
 * check errored saying `said`, every other of the `checks` run skipped. Returns `why`.
 */
export function expectSaidOnce({ report, stderr }: Run, said: RegExp, checks: number): string {
  const why = explain(report, stderr);
  expect(checksWith(report, 'failed', 'warned'), why).toEqual([]);
  const errored = report.checks.filter((c) => c.status === 'errored');
  expect(
    errored.map((c) => c.message),
    erroredText(report),
  ).toHaveLength(1);
  expect(errored[0].message, why).toMatch(said);
  expect(checksWith(report, 'skipped').length, why).toBe(checks - 1);
  return why;
}

/** A form POST the provider sees whole: where it went, its fields, its Authorization header. */
export interface PostedForm {
  url: URL;
  form: URLSearchParams;
  authorization?: string;
}

/**
 * The simulator behind a provider that answers the form POSTs to `paths` itself: `answer` is given
 * the request and `simulator`, which hands it on (as it came, or another form) and resolves to the
 * simulator's answer. Other requests reach the simulator as they are.
 */
export async function answeringPosts(
  paths: readonly string[],
  answer: (posted: PostedForm, simulator: (form?: URLSearchParams) => Promise<Response>, sim: Sim) => Promise<Response>,
): Promise<Loopback & { sim: Sim }> {
  let base = '';
  const served = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method !== 'POST' || !paths.includes(url.pathname)) return false;
    sendAnswer(
      res,
      bodyOf(req).then((raw) => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        headers.delete('content-length');
        const posted = {
          url,
          form: new URLSearchParams(raw.toString('utf8')),
          authorization: req.headers.authorization,
        };
        // The body as sent unless the provider hands on another form (a JSON body stays JSON).
        const simulator = (form?: URLSearchParams) =>
          served.sim.handle(
            new Request(url, { method: 'POST', headers, body: form?.toString() ?? new Uint8Array(raw) }),
          );
        return answer(posted, simulator, served.sim);
      }),
    );
    return true;
  });
  base = served.url;
  return served;
}
