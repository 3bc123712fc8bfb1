/**
 * Answers of a token oracle (token info, userinfo) that are neither acceptance (a 200 of its JSON)
 * nor refusal (401, 403): they say nothing of the token (review 28, defect 3). First a userinfo
 * that answers 500 to every request with a token: the rules that ask whether a token works
 * (rotation, revocation, the code flow) are judged by the other oracles, and oidc.userinfo alone
 * fails, on OIDC-USERINFO; what leans on userinfo's answers is untested. Then a provider that
 * redirects GET /oauth/userinfo (and GET /oauth/token/info) to the same path with a trailing
 * slash, which serves it: 301 Location /oauth/userinfo/, and the harness follows no redirect. The
 * start-up's anonymous question is unsure of a redirect; the first request with a token settles
 * the endpoint absent (a token oracle's: the others judge that token), its reporter fails its rule
 * once, and what needs it is skipped naming it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import type { Sim } from '../../simulator/types.js';
import { checksWith, erroredText, explain, rulesWith, runAgainst } from './provider.js';

/**
 * The simulator behind a front that answers GET `paths` with a 301 to `path/` (only requests that
 * carry a token when `withToken`), and serves `path/` as `path`.
 */
async function slashProvider(paths: readonly string[], withToken: boolean): Promise<Loopback & { sim: Sim }> {
  return simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const slashed = paths.find((p) => url.pathname === `${p}/`);
    if (slashed) {
      req.url = `${slashed}${url.search}`; // the simulator serves it
      return false;
    }
    const token = !!req.headers.authorization || url.searchParams.has('access_token');
    if (req.method !== 'GET' || !paths.includes(url.pathname) || (withToken && !token)) return false;
    req.resume();
    res.writeHead(301, { location: `${url.pathname}/${url.search}`, 'content-length': '0' });
    res.end();
    return true;
  });
}

/** The rules that ask an oracle whether a token works, the reviewer saw failed or warned by the redirect. */
const ORACLE_RULES = [
  'GRANT-CODE-FLOW',
  'TOK-REFRESH-ROTATION',
  'TOK-REFRESH-AFTER-EXPIRY',
  'TOK-VERIFY-USER',
  'LIM-TOKEN-LIFETIME',
  'REV-CLIENT-BOUND',
  'REV-CLIENT-AUTH',
  'REV-REVOKES-TOKEN',
  'GRANT-CODE-REUSE-REVOKES',
];

const opened: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  for (const p of opened) await p.close();
});

async function run(paths: readonly string[], withToken: boolean) {
  const provider = await slashProvider(paths, withToken);
  opened.push(provider);
  return runAgainst(provider);
}

const statusOf = (report: Report) => new Map(report.rules.map((r) => [r.id, r.status]));

describe('GET /oauth/userinfo answered 500 to every request with a token', () => {
  it('fails oidc.userinfo alone: a server error says nothing of the token to the others', async () => {
    const provider = await simulatorWith((req, res) => {
      if (!req.url?.startsWith('/oauth/userinfo') || !req.headers.authorization) return false;
      req.resume();
      res.writeHead(500, { 'content-type': 'text/html', 'content-length': '30' });
      res.end('<h1>Internal Server Error</h1>');
      return true;
    });
    opened.push(provider);
    const { code, report, stderr } = await runAgainst(provider);
    const why = explain(report, stderr);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    const status = statusOf(report);
    for (const id of ORACLE_RULES) expect(status.get(id), `${id}\n${why}`).toBe('passed');
    // One cause, one blame: userinfo serves no token, OIDC-USERINFO's; what leans on its answers is
    // untested (userinfo-server-error.test.ts; before, ENC-JSON-CONTENT-TYPE,
    // OIDC-USERINFO-INVALID-TOKEN and OIDC-USERINFO-REQUIRES-OPENID failed too).
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-USERINFO']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['oidc.userinfo']);
    expect(status.get('ENC-JSON-CONTENT-TYPE'), why).toBe('passed');
    expect(code).toBe(1);
  }, 300_000);
});

describe('GET /oauth/userinfo redirected to /oauth/userinfo/, with a token only', () => {
  it('fails OIDC-USERINFO alone, once; what needs userinfo is skipped naming it', async () => {
    const { code, report, stderr } = await run(['/oauth/userinfo'], true);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-USERINFO']);
    // The check whose token met the redirect first is judged on the other oracles (before: skipped).
    const status = statusOf(report);
    for (const id of ORACLE_RULES) expect(status.get(id), `${id}\n${why}`).toBe('passed');
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'oidc.userinfo-requires-openid')?.message).toMatch(
      /no userinfo endpoint: GET \S*\/oauth\/userinfo answered 401 without credentials at start-up and 301 with them to /,
    );
    expect(code).toBe(1);
  }, 300_000);
});

describe('GET /oauth/userinfo redirected to /oauth/userinfo/ (review 28, defect 3)', () => {
  it('fails OIDC-USERINFO alone, once; what needs userinfo is skipped naming it', async () => {
    const { code, report, stderr } = await run(['/oauth/userinfo'], false);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-USERINFO']);
    const status = statusOf(report);
    for (const id of ORACLE_RULES) expect(status.get(id), `${id}\n${why}`).toBe('passed');
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['oidc.userinfo']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    // The start-up's anonymous GET met the redirect (unsure: a gateway may send anonymous callers to
    // sign in); the first check's request with a token settles it absent, and is skipped with the rest.
    const said =
      /^(needs userinfo: )?the target has no userinfo endpoint: GET \S*\/oauth\/userinfo answered 301 without credentials at start-up and 301 with them to \S+ \(oidc\.userinfo reports it on OIDC-USERINFO\)$/;
    for (const id of ['oidc.userinfo-requires-openid', 'oidc.userinfo-invalid-token']) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('skipped');
      expect(check?.message, id).toMatch(said);
    }
    expect(code).toBe(1);
  }, 300_000);
});

describe('GET /oauth/userinfo and /oauth/token/info redirected to their trailing-slash paths', () => {
  it('fails OIDC-USERINFO and INFO-TOKEN-PRESENTATION, once each', async () => {
    const { code, report, stderr } = await run(['/oauth/userinfo', '/oauth/token/info'], false);
    const why = explain(report, stderr);
    // Judged on the REST API, the one oracle left.
    expect(statusOf(report).get('GRANT-CODE-REUSE-REVOKES'), why).toBe('passed');
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['INFO-TOKEN-PRESENTATION', 'OIDC-USERINFO']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['oidc.userinfo', 'tokens.info-presentations']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(code).toBe(1);
  }, 300_000);
});
