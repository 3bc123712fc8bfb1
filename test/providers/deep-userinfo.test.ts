/**
 * A userinfo endpoint answering 200 `application/json` nested 200,000 levels deep (review 28): to
 * GETs with a bearer token, or to every request there, preflights included. JSON deeper than
 * MAX_JSON_DEPTH is past what the harness reads, as a body past --max-body is, and is said the same
 * way: once per endpoint, failing only the rule of the check about that answer (OIDC-USERINFO, in
 * oidc.userinfo, which runs after the grants, device and tokens checks that meet it through the
 * token oracle); the first other check that meets it errs with no rule blamed, and the later ones
 * are untested, naming it. Before, every rule of each check that met it failed (24 must rules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../suites/report/json-depth.js';
import type { Sim } from '../../simulator/types.js';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runChecks } from './provider.js';

const DEPTH = 200_000;
const DEEP = '['.repeat(DEPTH) + ']'.repeat(DEPTH);

/** Which userinfo requests get the deep answer: GETs with a bearer token, or every one. */
let deepTo: 'bearer GET' | 'all' = 'bearer GET';
let served = 0;
let front: Loopback & { sim: Sim };

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/oauth/userinfo') return false;
    if (deepTo === 'bearer GET' && (req.method !== 'GET' || !req.headers.authorization)) return false;
    req.resume();
    served++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(DEEP);
    return true;
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

/** Checks that meet userinfo on their way (the token oracle, CORS), then the one about its answer. */
const CHECKS = [
  'grants.application-registration',
  'grants.refresh-rotation',
  'device.token-response',
  'tokens.revoke-access-token',
  'oidc.jwks',
  'oidc.userinfo',
  'oidc.userinfo-invalid-token',
  'cors.preflight',
  'cors.x-requested-with-refused',
  'cors.simple-requests',
];

const TOO_DEEP = `answered 200 with JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

describe('userinfo answering JSON nested 200,000 levels deep', () => {
  it.each([
    ['to GETs with a bearer token', 'bearer GET' as const, ['GET /oauth/userinfo']],
    ['to every request there, preflights included', 'all' as const, ['GET /oauth/userinfo', 'OPTIONS /oauth/userinfo']],
  ])(
    '%s: fails OIDC-USERINFO alone, once; each endpoint said once',
    async (_name, mode, endpoints) => {
      deepTo = mode;
      served = 0;
      const { code, report, stderr } = await runChecks(front, CHECKS);
      const why = explain(report, stderr);
      expect(served, why).toBeGreaterThan(0);
      expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-USERINFO']);
      const userinfo = report.checks.find((c) => c.id === 'oidc.userinfo')!;
      expect(userinfo, why).toMatchObject({ status: 'failed', broken: ['OIDC-USERINFO'] });
      expect(userinfo.message, why).toContain(TOO_DEEP);
      // One check errs per endpoint met before the check about the answer, no rule blamed.
      const errored = report.checks.filter((c) => c.status === 'errored');
      expect(
        errored.map((c) =>
          c.message
            ?.match(/: (\w+) http:\/\/[^/]+(\/\S+) answered/)
            ?.slice(1)
            .join(' '),
        ),
        why,
      ).toEqual(endpoints);
      for (const c of errored) {
        expect(c.message, why).toMatch(/^the answer was too large to read, so nothing was seen: /);
        expect(c.message, why).toContain(TOO_DEEP);
        expect(c.broken ?? [], why).toEqual([]);
      }
      // Every other check that met it is untested, naming the check that said it; the rest passed.
      const said = new Set([...errored, userinfo].map((c) => c.id));
      for (const c of report.checks.filter((c) => !said.has(c.id) && c.status !== 'passed')) {
        expect(c.status, why).toBe('skipped');
        expect(c.message, why).toContain(TOO_DEEP);
        expect(c.message?.match(/\(([\w.-]+) reports it, once\)$/)?.[1], why).toMatch(/^(grants|cors)\./);
      }
      expect(checksWith(report, 'passed'), why).toContain('oidc.jwks');
      expect(code, why).toBe(1);
    },
    120_000,
  );
});
