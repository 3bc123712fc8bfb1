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
import { atSourcePath, metadataUrl } from '../../suites/shared/oauth.js';
import type { Sim } from '../../simulator/types.js';
import { sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, explain, rulesWith, runAgainst } from './provider.js';

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

/**
 * The provider, its metadata document at `metadataAt` and nowhere else: OpenID Connect's
 * openid-configuration (Keycloak), or RFC 8414's oauth-authorization-server (an OAuth server that
 * publishes no OIDC discovery and serves no REST API: Spring Authorization Server without OIDC).
 */
async function startOwnPaths(metadataAt: string): Promise<Loopback & { sim: Sim }> {
  let base = '';
  const oauthOnly = metadataAt !== DISCOVERY;
  const served = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const unserved = oauthOnly && (url.pathname === DISCOVERY || url.pathname.startsWith('/api/v4'));
    if (OWN[url.pathname] || unserved) {
      if (OWN[url.pathname]) atSourcePaths.push(`${req.method} ${url.pathname}`);
      req.resume();
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not Found</p>');
      return true;
    }
    const source = Object.keys(OWN).find((path) => OWN[path] === url.pathname);
    if (url.pathname === metadataAt) {
      sendAnswer(
        res,
        (async () => {
          const doc = (await (await served.sim.handle(new Request(new URL(DISCOVERY, base)))).json()) as Record<
            string,
            unknown
          >;
          for (const [member, path] of Object.entries(MEMBERS)) doc[member] = `${served.url}${OWN[path]}`;
          return Response.json(doc);
        })(),
      );
      return true;
    }
    if (!source) return false;
    url.pathname = source;
    sendAnswer(
      res,
      simulatorAnswerTo(served.sim, req, url).then(async (answer) => {
        if (!errorsAs403 || source !== '/oauth/token' || answer.status !== 400) return answer;
        return new Response(await answer.text(), { status: 403, headers: answer.headers });
      }),
    );
    return true;
  });
  base = served.url;
  return served;
}

const DISCOVERY = '/.well-known/openid-configuration';
const RFC8414 = '/.well-known/oauth-authorization-server';

let front: Loopback & { sim: Sim };
let oauthServer: Loopback & { sim: Sim };
/** A deviation of the provider's own at its token path: token errors answered 403 (ERR-TOKEN-STATUS). */
let errorsAs403 = false;
/** `METHOD /path` of every request to a source path the provider does not serve. */
const atSourcePaths: string[] = [];

beforeAll(async () => {
  front = await startOwnPaths(DISCOVERY);
  oauthServer = await startOwnPaths(RFC8414);
}, 60_000);

afterAll(async () => {
  await front?.close();
  await oauthServer?.close();
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

describe("metadata only at RFC 8414's /.well-known/oauth-authorization-server, endpoints at the provider's own paths, no REST API", () => {
  it('the endpoints are found there: only OIDC-DISCOVERY warns (no openid-configuration), every other check passes', async () => {
    atSourcePaths.length = 0;
    const checks = allChecks().filter((c) => CHECKS.includes(c.id));
    const { code, report, stderr } = await runAgainst(oauthServer, { runs: '1' }, checks);
    const why = explain(report, stderr);
    expect(code, why).toBe(0);
    expect(checksWith(report, 'failed', 'warned', 'errored', 'skipped'), why).toEqual(['oidc.discovery']);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['OIDC-DISCOVERY']);
    expect(report.checks.find((c) => c.id === 'oidc.discovery')?.message, why).toMatch(
      /GET \/\.well-known\/openid-configuration must answer 200/,
    );
    expect(atSourcePaths, why).toEqual([]);
  }, 120_000);
});

describe("where RFC 8414's metadata is read (§3.1: the well-known segment between the host and the issuer's path)", () => {
  it("at the host's root for an issuer there; before the issuer's path otherwise; the base URL's path without an issuer on its origin", () => {
    expect(metadataUrl('https://idp.example', undefined)).toBe(
      'https://idp.example/.well-known/oauth-authorization-server',
    );
    expect(metadataUrl('https://idp.example', 'https://idp.example/issuer1')).toBe(
      'https://idp.example/.well-known/oauth-authorization-server/issuer1',
    );
    expect(metadataUrl('https://idp.example/gitlab/', undefined)).toBe(
      'https://idp.example/.well-known/oauth-authorization-server/gitlab',
    );
    expect(metadataUrl('https://idp.example/gitlab', 'https://login.example/t')).toBe(
      'https://idp.example/.well-known/oauth-authorization-server/gitlab',
    );
  });
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
