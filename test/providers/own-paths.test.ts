/**
 * Endpoints at paths of the provider's own, on the base URL's own origin (Keycloak's
 * /realms/NAME/protocol/openid-connect/token, Okta's /oauth2/v1/token), as discovery names them:
 * asked there, as an endpoint on a trusted other origin is. The one verdict is discovery's
 * warning (OIDC-DISCOVERY: L104-L113 name the source's paths); the checks that need the endpoints
 * test what they do. Before, each read as absent at the source's path: GRANT-CODE-PARAMS (a must)
 * failed, and every check that needed the token endpoint, the key set or userinfo went untested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { atSourcePath } from '../../suites/shared/oauth.js';
import type { Sim } from '../../simulator/types.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, runAgainst } from './provider.js';

/** Keycloak's paths under its realm, by the source path they serve. */
const REALM = '/realms/conformance/protocol/openid-connect';
const OWN: Record<string, string> = {
  '/oauth/token': `${REALM}/token`,
  '/oauth/revoke': `${REALM}/revoke`,
  '/oauth/userinfo': `${REALM}/userinfo`,
  '/oauth/discovery/keys': `${REALM}/certs`,
};
const MEMBERS: Record<string, string> = {
  token_endpoint: '/oauth/token',
  revocation_endpoint: '/oauth/revoke',
  userinfo_endpoint: '/oauth/userinfo',
  jwks_uri: '/oauth/discovery/keys',
};
const CHECKS = [
  'grants.token-response-fields',
  'tokens.revoke-access-token',
  'oidc.discovery',
  'oidc.jwks',
  'oidc.id-token',
  'oidc.userinfo',
];

let front: Loopback & { sim: Sim };
/** A deviation of the provider's own at its token path: token errors answered 403 (ERR-TOKEN-STATUS). */
let errorsAs403 = false;
/** `METHOD /path` of every request to a source path the provider does not serve. */
const atSourcePaths: string[] = [];

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (OWN[url.pathname]) {
      atSourcePaths.push(`${req.method} ${url.pathname}`);
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not Found</p>');
      return true;
    }
    const source = Object.keys(OWN).find((path) => OWN[path] === url.pathname);
    if (url.pathname === '/.well-known/openid-configuration') {
      sendAnswer(
        res,
        (async () => {
          const doc = (await (await front.sim.handle(new Request(url))).json()) as Record<string, unknown>;
          for (const [member, path] of Object.entries(MEMBERS)) doc[member] = `${front.url}${OWN[path]}`;
          return Response.json(doc);
        })(),
      );
      return true;
    }
    if (!source) return false;
    url.pathname = source;
    sendAnswer(
      res,
      simulatorAnswerTo(front.sim, req, url).then(async (answer) => {
        if (!errorsAs403 || source !== '/oauth/token' || answer.status !== 400) return answer;
        return new Response(await answer.text(), { status: 403, headers: answer.headers });
      }),
    );
    return true;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("endpoints at the provider's own paths on the base URL's origin, as discovery names them", () => {
  it('are asked there: only OIDC-DISCOVERY warns, every other check passes', async () => {
    atSourcePaths.length = 0;
    const checks = allChecks().filter((c) => CHECKS.includes(c.id));
    const { report, stderr } = await runAgainst(front, { runs: '1' }, checks);
    const why = explain(report, stderr);
    expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual(['oidc.discovery']);
    expect(
      report.rules.filter((r) => r.status === 'failed' || r.status === 'warned').map((r) => r.id),
      why,
    ).toEqual(['OIDC-DISCOVERY']);
    expect(report.checks.find((c) => c.id === 'oidc.discovery')?.message, why).toMatch(
      /must be the absolute URL of \/oauth\//,
    );
    // Nothing asked the source's paths: the start-up's probes went where discovery says too.
    expect(atSourcePaths, why).toEqual([]);
  }, 120_000);

  it('a deviation there is blamed on the rule whose sentence it breaks, as at the source path', async () => {
    errorsAs403 = true;
    try {
      const checks = allChecks().filter((c) => ['grants.code-single-use', 'oidc.discovery'].includes(c.id));
      const { report, stderr } = await runAgainst(front, { runs: '1' }, checks);
      const why = explain(report, stderr);
      expect(
        report.rules
          .filter((r) => r.status === 'failed' || r.status === 'warned')
          .map((r) => r.id)
          .sort(),
        why,
      ).toEqual(['ERR-TOKEN-STATUS', 'OIDC-DISCOVERY']);
    } finally {
      errorsAs403 = false;
    }
  }, 120_000);
});

describe("whether discovery's URL is the endpoint at the source's path (one answer for routing and OIDC-DISCOVERY)", () => {
  it('on the base origin, under the base URL exactly (a trailing slash aside); elsewhere, at the end of the path', () => {
    const at = (url: string, base = 'https://idp.example') => atSourcePath(new URL(url), [base], '/oauth/token');
    expect(at('https://idp.example/oauth/token')).toBe(true);
    expect(at('https://idp.example/oauth/token/')).toBe(true);
    expect(at('https://idp.example/tenant/oauth/token')).toBe(false);
    expect(at('https://idp.example/gitlab/oauth/token', 'https://idp.example/gitlab')).toBe(true);
    expect(at('https://idp.example/gitlab/oauth/token', 'https://idp.example/gitlab/')).toBe(true);
    expect(at('https://idp.example/oauth/token', 'https://idp.example/gitlab')).toBe(false);
    expect(at('https://api.idp.example/v2/oauth/token')).toBe(true);
    expect(at('https://api.idp.example/token')).toBe(false);
    // Under the configured issuer too, where OIDC-DISCOVERY names it a root (Keycloak's realm).
    const realm = 'https://idp.example/realms/x';
    expect(atSourcePath(new URL(`${realm}/oauth/token`), ['https://idp.example', realm], '/oauth/token')).toBe(true);
  });
});
