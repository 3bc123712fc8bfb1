/**
 * An absent endpoint that a gateway does not answer 404 (review 26): Spring Security, oauth2-proxy
 * or Kong with a global auth plugin asks for sign-in before routing (401 Bearer without
 * credentials, the 404 only to a bearer token), and AWS API Gateway answers a route it does not
 * define 403 Missing Authentication Token. Either way the absence is reported once, on the rule
 * that says the endpoint answers; the checks that need it are skipped naming it, none fails its
 * own rules on the later answers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { simulatorWith, type Loopback } from '../suites/loopback.js';
import { explain, rulesWith, runAgainst, type Reply } from './provider.js';

const servers: Loopback[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

/** Sign-in before routing: no credentials, 401 Bearer; a bearer token, the application's JSON 404. */
const signInFirst = (headers: IncomingHttpHeaders, url: URL): Reply =>
  headers.authorization || url.searchParams.has('access_token')
    ? {
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 404, error: 'Not Found', path: url.pathname }),
      }
    : { status: 401, headers: { 'www-authenticate': 'Bearer' } };

/** AWS API Gateway's answer for a route it does not define, to any method and credentials. */
const apiGatewayMissing: Reply = {
  status: 403,
  headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'MissingAuthenticationTokenException' },
  body: '{"message":"Missing Authentication Token"}',
};

const CASES = [
  {
    name: 'token information behind sign-in (401 Bearer, then 404)',
    path: '/oauth/token/info',
    gateway: 'signin',
    suite: 'tokens,scopes,grants',
    reporter: 'tokens.info-presentations',
    rule: 'INFO-TOKEN-PRESENTATION',
    why: /no token information endpoint: GET \S+ answered 401 without credentials at start-up and 404 with them to /,
  },
  {
    name: 'token information behind API Gateway (403 Missing Authentication Token)',
    path: '/oauth/token/info',
    gateway: 'apigw',
    suite: 'tokens,scopes,grants',
    reporter: 'tokens.info-presentations',
    rule: 'INFO-TOKEN-PRESENTATION',
    why: /no token information endpoint: GET \S+ answered 403 at start-up/,
  },
  {
    name: 'revocation behind API Gateway (403 Missing Authentication Token)',
    path: '/oauth/revoke',
    gateway: 'apigw',
    suite: 'tokens,cors,grants',
    reporter: 'tokens.revoke-access-token',
    rule: 'REV-PARAMS',
    why: /no revocation endpoint: an empty POST \S+ answered 403 at start-up/,
  },
] as const;

describe('an endpoint a gateway hides is reported absent once', () => {
  it.each(CASES)(
    '$name: only $reporter fails, on $rule; what needs it is skipped',
    async (c) => {
      const provider = await simulatorWith((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname !== c.path) return false;
        req.resume();
        const {
          status,
          headers = {},
          body = '',
        } = c.gateway === 'apigw' ? apiGatewayMissing : signInFirst(req.headers, url);
        res.writeHead(status, headers);
        res.end(body);
        return true;
      });
      servers.push(provider);
      const { report, stderr } = await runAgainst(provider, { suite: c.suite, runs: '1' });
      const why = explain(report, stderr);
      expect(rulesWith(report, 'failed', 'warned', 'errored'), why).toEqual([c.rule]);
      expect(
        report.checks.filter((k) => ['failed', 'warned', 'errored'].includes(k.status)).map((k) => k.id),
        why,
      ).toEqual([c.reporter]);
      expect(
        report.checks.filter((k) => k.status === 'skipped' && c.why.test(k.message ?? '')).length,
        why,
      ).toBeGreaterThan(0);
    },
    120_000,
  );
});
