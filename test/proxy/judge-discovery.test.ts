/**
 * The proxy judges what it sees of discovery with oidc.discovery's own judgements
 * (suites/oidc/discovery-lists.ts): the lists the document must carry and RS256 among its
 * algorithms, then the token and authorization answers that follow against the grant and response
 * types it listed. Before, it judged the document's shape only: a grant type served and left out,
 * or listed and refused as unsupported, passed unseen where `run` failed OIDC-DISCOVERY.
 */
import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import type { Verdict } from '../../suites/proxy/recorder.js';

const JSON_NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

const exchange = (method: string, target: string, status: number, body: unknown, extra: Partial<Observed> = {}) =>
  ({
    method,
    target,
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    status,
    responseHeaders: new Headers(JSON_NO_STORE),
    responseBody: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    at: 0,
    ...extra,
  }) satisfies Observed;

const tokenRequest = (grant: string, status: number, body: unknown) =>
  exchange('POST', '/oauth/token', status, body, {
    requestBody: Buffer.from(new URLSearchParams({ grant_type: grant, client_id: 'app' }).toString()),
  });

const of = (verdicts: Verdict[], rule: string) => verdicts.filter((v) => v.rule === rule);
const failed = (verdicts: Verdict[], rule: string) => of(verdicts, rule).filter((v) => !v.ok);

/** A document of the shape spec/openapi.yaml gives (the proxy judges that too). */
const DOCUMENT = {
  issuer: 'http://127.0.0.1:1',
  authorization_endpoint: 'http://127.0.0.1:1/oauth/authorize',
  token_endpoint: 'http://127.0.0.1:1/oauth/token',
  jwks_uri: 'http://127.0.0.1:1/oauth/discovery/keys',
  subject_types_supported: ['public'],
  scopes_supported: ['openid', 'api'],
  response_types_supported: ['code', 'token'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  id_token_signing_alg_values_supported: ['RS256'],
};

/** Fresh flows that saw `doc` answered at the discovery path; the verdicts of that exchange. */
function sawDiscovery(doc: Record<string, unknown> = DOCUMENT) {
  const flows = createFlows();
  const verdicts = judgeExchange(exchange('GET', '/.well-known/openid-configuration', 200, doc), flows);
  return { flows, verdicts };
}

describe('the discovery document the client was given', () => {
  it('holds its lists as oidc.discovery does: openid, code, authorization_code, a list of algorithms with RS256', () => {
    const { verdicts } = sawDiscovery();
    expect(failed(verdicts, 'OIDC-DISCOVERY')).toEqual([]);
    expect(of(verdicts, 'OIDC-DISCOVERY').length).toBeGreaterThan(0);
    expect(of(verdicts, 'OIDC-DISCOVERY-RS256')).toEqual([{ rule: 'OIDC-DISCOVERY-RS256', ok: true }]);

    const noOpenid = sawDiscovery({ ...DOCUMENT, scopes_supported: ['api'] }).verdicts;
    expect(failed(noOpenid, 'OIDC-DISCOVERY').map((v) => v.message)).toEqual(['scopes_supported must list openid']);
    // A list missing is the shape's failure, said once (one cause, one blame): its content is not judged besides.
    const { response_types_supported: _, ...noResponseTypes } = DOCUMENT;
    const missing = sawDiscovery(noResponseTypes).verdicts;
    expect(failed(missing, 'OIDC-DISCOVERY').map((v) => v.message)).toEqual([
      expect.stringMatching(/lacks response_types_supported .*schema OpenIdConfiguration/),
    ]);
    const noRs256 = sawDiscovery({ ...DOCUMENT, id_token_signing_alg_values_supported: ['ES256'] }).verdicts;
    expect(failed(noRs256, 'OIDC-DISCOVERY-RS256').map((v) => v.message)).toEqual([
      'id_token_signing_alg_values_supported must include RS256 (OIDC Discovery §3)',
    ]);
  });
});

describe('the answers that follow, against the types it listed', () => {
  it('a grant type served and left out of grant_types_supported, or listed and refused as unsupported, breaks OIDC-DISCOVERY', () => {
    const { flows } = sawDiscovery();
    const served = judgeExchange(
      tokenRequest('password', 200, { access_token: 'a'.repeat(20), token_type: 'bearer', expires_in: 7200 }),
      flows,
    );
    expect(failed(served, 'OIDC-DISCOVERY').map((v) => v.message)).toEqual([
      '/oauth/token serves grant_type password, which grant_types_supported leaves out',
    ]);
    const refused = judgeExchange(
      tokenRequest('refresh_token', 400, { error: 'unsupported_grant_type', error_description: 'no' }),
      flows,
    );
    expect(failed(refused, 'OIDC-DISCOVERY').map((v) => v.message)).toEqual([
      'grant_types_supported lists refresh_token, which /oauth/token refuses as unsupported',
    ]);
    // A listed grant refused for another reason is served.
    const served2 = judgeExchange(
      tokenRequest('authorization_code', 400, { error: 'invalid_grant', error_description: 'no' }),
      flows,
    );
    expect(of(served2, 'OIDC-DISCOVERY')).toEqual([{ rule: 'OIDC-DISCOVERY', ok: true }]);
    // A client refused as unknown says nothing of the grant: no verdict.
    const unknownClient = judgeExchange(
      tokenRequest('client_credentials', 401, { error: 'invalid_client', error_description: 'who?' }),
      flows,
    );
    expect(of(unknownClient, 'OIDC-DISCOVERY')).toEqual([]);
    // Neither does an answer that is no OAuth error (throttled, an empty 401, a 404): no verdict.
    for (const [status, body] of [
      [429, { message: 'slow down' }],
      [401, undefined],
      [404, { message: 'Not Found' }],
    ] as const)
      expect(of(judgeExchange(tokenRequest('password', status, body), flows), 'OIDC-DISCOVERY'), `${status}`).toEqual(
        [],
      );
  });

  it('a listed response type refused as unsupported breaks OIDC-DISCOVERY', () => {
    const { flows } = sawDiscovery();
    const refused = judgeExchange(
      exchange('GET', '/oauth/authorize?client_id=app&response_type=token&state=s', 302, undefined, {
        responseHeaders: new Headers({ location: 'http://127.0.0.1:2/cb?error=unsupported_response_type&state=s' }),
      }),
      flows,
    );
    expect(failed(refused, 'OIDC-DISCOVERY').map((v) => v.message)).toEqual([
      'response_types_supported lists token, which /oauth/authorize refuses as unsupported',
    ]);
  });

  it('nothing is held to a document the proxy did not see', () => {
    const flows = createFlows();
    expect(
      of(judgeExchange(tokenRequest('password', 400, { error: 'unsupported_grant_type' }), flows), 'OIDC-DISCOVERY'),
    ).toEqual([]);
  });
});
