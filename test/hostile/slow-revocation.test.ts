/**
 * A provider that answers every revocation correctly, but slowly (review 29: 1.9 s each under
 * --timeout 2000). Revocation asks one request per token, one after the other, so a check's
 * clean-up took tokens × the answer's time after the check (34 tokens, 67 s after a check of
 * 2.3 s), outside its time limit and the slow-target notice's estimate. Now each clean-up has a
 * budget (REVOKE_SHARE of the check's limit): none is begun past it, the check keeps its verdict,
 * and the run says once how many tokens were left to expire, never which; the saved reports too
 * (the JSON counts them, every verdict line says so), none of the tokens. The simulator over HTTP,
 * its revocations held DELAY_MS each (real waits, kept short: a check limit of 8 s, so 2 s to
 * revoke); the assertions are on counts, bounded by what can begin within the budget.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatConsole, readReport, writeReports, type ReportKind } from '../../reporters/index.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { checks as grantsChecks } from '../../suites/grants/index.js';
import type { Report } from '../../suites/report/model.js';
import { leftUnrevoked } from '../../suites/report/words.js';
import { DEFAULT_RUNS } from '../../suites/runner/defaults.js';
import { runConformance } from '../../suites/runner/run.js';
import { revokeBudgetMs, unrevokedTokens } from '../../suites/runner/session.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';

const CHECK_LIMIT_MS = 8000;
const DELAY_MS = 500;
const servers: Loopback[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A revocation that names a token (not the start-up's empty question whether the endpoint is there). */
const revokes = (req: IncomingMessage) =>
  req.method === 'POST' && req.url?.split('?')[0] === '/oauth/revoke' && Number(req.headers['content-length']) > 0;

/** A token answer of the simulator (POST /oauth/token). */
const mints = (req: IncomingMessage) => req.method === 'POST' && req.url?.split('?')[0] === '/oauth/token';

describe('a provider whose revocation endpoint answers slowly', () => {
  let asked = 0;
  /** Every token the provider issued (access, refresh, ID), read off its token answers. */
  const minted: string[] = [];
  const lines: string[] = [];
  let report: Report;
  beforeAll(async () => {
    const server = await simulatorWith((req, res) => {
      if (mints(req)) {
        const url = new URL(req.url ?? '/', server.url);
        const answer = simulatorAnswerTo(server.sim, req, url).then(async (answer) => {
          const body = (await answer.clone().json()) as Record<string, unknown>;
          for (const name of ['access_token', 'refresh_token', 'id_token'])
            if (typeof body[name] === 'string') minted.push(body[name]);
          return answer;
        });
        sendAnswer(res, answer);
        return true;
      }
      if (!revokes(req)) return false;
      asked++;
      setTimeout(() => toNodeListener(server.sim)(req, res), DELAY_MS);
      return true;
    });
    servers.push(server);
    report = await runConformance({
      target: createHttpTarget(targetConfig(server.sim, server.url), { timeoutMs: 2000 }),
      checks: grantsChecks.filter((c) => c.id === 'grants.pkce-valid-verifier'),
      seed: 1,
      numRuns: DEFAULT_RUNS,
      checkTimeoutMs: CHECK_LIMIT_MS,
      progress: (line) => lines.push(line),
    });
  }, 60_000);

  it('each clean-up stops at its budget; the check keeps its pass; the tokens left are counted, once', () => {
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['grants.pkce-valid-verifier', 'passed']]);
    // Two clean-ups (the start-up's, the check's), each beginning revocations DELAY_MS apart at
    // least, none past its budget. Before, each of the check's tokens was revoked (34 at this seed).
    const perCleanUp = Math.ceil(revokeBudgetMs(CHECK_LIMIT_MS) / DELAY_MS);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(2 * perCleanUp);
    // Said once, at the end: how many, never a token.
    const said = lines.filter((l) => l.includes('left unrevoked'));
    expect(said).toHaveLength(1);
    const left = Number(/^(\d+) tokens? /.exec(said[0])?.[1]);
    expect(left).toBeGreaterThan(0);
    expect(said[0]).toBe(unrevokedTokens(left, CHECK_LIMIT_MS));
    expect(said[0]).toContain("revoking a check's tokens may take 2 s");
    // The report counts the same tokens (before, only the console line said it).
    expect(report.unrevokedTokens).toBe(left);
  });

  it('every saved report says how many were left, in the same words, and none of the tokens', async () => {
    const left = report.unrevokedTokens!;
    expect(left).toBeGreaterThan(0);
    expect(minted.length).toBeGreaterThan(left);
    const dir = mkdtempSync(join(tmpdir(), 'idp-unrevoked-'));
    const kinds: [ReportKind, string][] = [
      ['json', 'report.json'],
      ['junit', 'report.xml'],
      ['html', 'report.html'],
      ['md', 'report.md'],
    ];
    await writeReports(
      report,
      kinds.map(([kind, file]) => ({ kind, path: join(dir, file) })),
    );
    // The saved JSON, read back as `report merge` and `--rerun-failed` read it (the schema checked).
    expect((await readReport(join(dir, 'report.json'))).unrevokedTokens).toBe(left);
    const sentence = leftUnrevoked(left);
    const outputs = [
      ...kinds.map(([kind, file]) => [kind, readFileSync(join(dir, file), 'utf8')]),
      ['console', formatConsole(report)],
      ['console --quiet', formatConsole(report, { quiet: true })],
    ];
    for (const [kind, text] of outputs) {
      if (kind !== 'json') expect(text, kind).toContain(sentence);
      for (const token of minted) expect(text.includes(token), `${kind} holds a minted token`).toBe(false);
    }
  });
});
