/**
 * The harness's trouble is never the provider's failure, in property checks too: against a target
 * whose sign-in and consent pages redirect to themselves, the form driver gives up ("the provider's
 * pages did not settle") and every check that needed those pages is errored, its rules untested,
 * none failed. Unit cases pin the property's reading of what its predicate throws.
 */
import * as fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createCheckContext, createEvidence, type ContextParts } from '../../suites/runner/context.js';
import { CheckFailure, HarnessError } from '../../suites/runner/errors.js';
import { createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import type { Report } from '../../suites/report/model.js';
import { executeRun } from '../../cli/run.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';

const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** Every page (anything under /oauth/authorize or /users/) answers 302 to itself. */
const PAGE = /^\/(oauth\/authorize(?!_device)|users\/)/;

describe('a target whose every page redirects to itself', () => {
  it('property checks that need the pages are errored, not failed, and break no rule', async () => {
    const server = await simulatorWith((req, res) => {
      if (!PAGE.test(req.url ?? '')) return false;
      req.resume();
      res.writeHead(302, { location: req.url });
      res.end();
      return true;
    });
    servers.push(server);
    const ids = ['grants.state-unchanged', 'grants.pkce-valid-verifier', 'grants.code-single-use'];
    for (const id of ids) {
      const r = await runOne(server.url, id);
      expect(r.status, `${id}: ${r.message}`).toBe('errored');
      expect(r.message).toMatch(/did not settle/);
      expect(r.broken).toBeUndefined();
    }
  }, 120_000);
});

async function runOne(url: string, check: string) {
  let report: Report | undefined;
  await executeRun(
    { target: url, check, seed: '5', runs: '3', quiet: true },
    { out: () => undefined, err: () => undefined, onReport: (r) => (report = r) },
    {},
  );
  return report!.checks.find((c) => c.id === check)!;
}

function context() {
  const recorder = createRecorder();
  const parts = {
    config: { baseUrl: 'http://127.0.0.1:1' },
    seed: 1,
    numRuns: 20,
    recorder,
    redactor: createRedactor([]),
    evidence: createEvidence(),
  } as unknown as ContextParts;
  return createCheckContext(parts);
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => e,
  );

describe('what a property makes of what its predicate throws', () => {
  it('a HarnessError or a crash ends it as thrown, asked once, never as a failure', async () => {
    for (const thrown of [new HarnessError('no button'), new TypeError('boom'), 'a string']) {
      const t = context();
      let calls = 0;
      const error = await rejection(
        t.property(fc.nat(), async () => {
          calls++;
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- a predicate may throw anything
          throw thrown;
        }),
      );
      expect(error).toBe(thrown);
      expect(calls).toBe(1);
    }
  });

  it('trouble while shrinking a real failure halts the shrinking; the failure stands', async () => {
    const t = context();
    const error = await rejection(
      t.property(fc.integer({ min: 0, max: 1000 }), async (n) => {
        if (n >= 500) throw new CheckFailure(`n=${n} is too big`);
        if (n >= 100) throw new HarnessError('the target stopped answering');
      }),
    );
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).message).toMatch(/^n=\d+ is too big$/);
  });
});
