/**
 * End to end: a run against a faulty simulator produces failures with HTTP exchanges, and no
 * secret the simulator ever held (passwords, client secrets, tokens, refresh tokens, codes,
 * device and user codes, session ids) appears in any report format or on the console.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator/core.js';
import { allChecks } from '../suites/index.js';
import { createEmbeddedTarget } from '../suites/target/embedded.js';
import { runConformance } from '../suites/runner/run.js';
import { formatConsole, renderHtml, renderJson, renderJunit, renderMarkdown } from '../reporters/index.js';
import type { Sim } from '../simulator/types.js';
import { seeded } from '../simulator/oauth/accounts.js';

const FAULTS = [
  'code-reusable',
  'refresh-token-reusable',
  'revoke-ignored',
  'pkce-verifier-ignored',
  'token-info-no-aliases',
  'scope-not-checked',
];

const shownValues = new WeakMap<Sim, string[]>();

/** Remember every credential a response hands out (the store keeps only their digests). */
function recordShown(sim: Sim): void {
  const shown: string[] = [];
  shownValues.set(sim, shown);
  const handle = sim.handle.bind(sim);
  sim.handle = async (request) => {
    const response = await handle(request);
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as Record<string, unknown> | null;
      for (const key of ['access_token', 'refresh_token', 'id_token', 'device_code', 'user_code'])
        if (body && typeof body[key] === 'string') shown.push(body[key]);
    }
    const code = URL.canParse(response.headers.get('location') ?? '')
      ? new URL(response.headers.get('location')!).searchParams.get('code')
      : null;
    if (code) shown.push(code);
    const session = /_idp_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '');
    if (session) shown.push(session[1]);
    return response;
  };
}

function everySecret(sim: Sim): string[] {
  const s = sim.store;
  const values = [
    // The store keeps passwords, client secrets and tokens only as digests (and the digests too
    // must not leak); the plaintext values are those seeded and those the responses showed.
    ...[...s.users.values()].map((u) => u.passwordHash),
    ...[...s.applications.values()].map((a) => a.secretHash),
    ...s.accessTokens.keys(),
    ...s.refreshTokens.keys(),
    ...Object.values(seeded(sim).applications).map((a) => a.secret),
    ...[seeded(sim).admin, seeded(sim).user, seeded(sim).twoFactorUser].map((u) => u.password),
    seeded(sim).personalAccessToken,
    ...(shownValues.get(sim) ?? []),
    ...s.codes.keys(),
    ...[...s.deviceCodes.values()].flatMap((d) => [d.digest, d.userCodeDigest]),
    ...s.sessions.keys(),
  ];
  // Short values (a 6-letter user code) could occur in text by chance; 8+ characters cannot.
  return values.filter((v) => typeof v === 'string' && v.length >= 8);
}

describe('secrets never reach a report', () => {
  it('masks every secret the simulator issued, in every format, in a run full of failures', async () => {
    const sim = createSimulator({ faults: FAULTS });
    recordShown(sim);
    const checks = allChecks().filter((c) => ['grants', 'device', 'tokens', 'scopes'].includes(c.suite));
    const report = await runConformance({ target: await createEmbeddedTarget(sim), checks, seed: 11, numRuns: 5 });

    // The run must have failed with exchanges, or this test would prove nothing.
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((c) => (c.exchange ?? []).length > 0)).toBe(true);

    const secrets = everySecret(sim);
    expect(secrets.length).toBeGreaterThan(20);
    const outputs = {
      json: renderJson(report),
      junit: renderJunit(report),
      html: renderHtml(report),
      md: renderMarkdown(report),
      console: formatConsole(report, { color: false }),
    };
    for (const [kind, text] of Object.entries(outputs)) {
      const leaked = secrets.filter((secret) => text.includes(secret));
      expect(leaked.length, `${kind} report leaks ${leaked.length} secret(s)`).toBe(0);
    }
  });
});
