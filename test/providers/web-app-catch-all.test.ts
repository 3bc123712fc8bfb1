/**
 * An OAuth-only provider whose host serves a web app: any GET it does not route (every path under
 * /api/, and in the second case /oauth/token/info too) answers the app's page, `200 text/html`
 * `<!doctype html>…<div id="root">`. The OAuth endpoints answer as the source says. A page is no
 * REST API and no token information: each is reported once, as absent, on the rule that says it
 * exists, and what needs it is skipped; before (review 28, defect 1), the page was read as the API
 * and 19 checks failed, 28 errored.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checksWith, erroredText, explain, rulesWith, runAgainst, startProvider, type Provider } from './provider.js';

const PAGE =
  '<!doctype html><html><head><title>App</title><script src="/static/main.js"></script></head><body><div id="root"></div></body></html>';
const page = () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE });

/** The web app's catch-all: GET /api/* and `also`. */
const catchAll =
  (also: readonly string[] = []) =>
  (method: string, url: URL) =>
    method === 'GET' && (url.pathname.startsWith('/api/') || also.includes(url.pathname)) ? page : undefined;

const opened: Provider[] = [];
afterAll(async () => {
  for (const p of opened) await p.close();
});

async function run(also?: readonly string[]) {
  const provider = await startProvider(catchAll(also));
  opened.push(provider);
  return runAgainst(provider);
}

const NO_API =
  /^needs restApi: the target has no REST API: GET \/api\/v4\/user answered 200 with a web page, not JSON \(versioning\.api-prefix reports it on ENC-API-PREFIX\)$/;

describe('a web app page for every GET under /api/', () => {
  it('fails ENC-API-PREFIX alone, once; every REST check skipped naming it', async () => {
    const { code, report, stderr } = await run();
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['ENC-API-PREFIX']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['versioning.api-prefix']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'versioning.api-prefix')?.message).toMatch(
      /GET \/api\/v4\/user answered a web page, not the REST API/,
    );
    const skipped = new Map(report.checks.filter((c) => c.status === 'skipped').map((c) => [c.id, c.message ?? '']));
    for (const id of [
      'scopes.presentation-bearer',
      'scopes.revoked-token-401',
      'encoding.uri-too-long-414',
      'pagination.keyset-list-users',
      'versioning.member-roles',
    ])
      expect(skipped.get(id), id).toMatch(NO_API);
    // The page is not "the authenticated user": the token oracles are token info and userinfo.
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    for (const id of ['TOK-REFRESH-ROTATION', 'REV-REVOKES-TOKEN', 'INFO-RESPONSE-FIELDS', 'LIM-TOKEN-LIFETIME'])
      expect(status.get(id), id).toBe('passed');
    expect(code).toBe(1);
  }, 300_000);
});

describe('a web app page for every GET under /api/ and for /oauth/token/info', () => {
  it('fails ENC-API-PREFIX and INFO-TOKEN-PRESENTATION, once each', async () => {
    const { code, report, stderr } = await run(['/oauth/token/info']);
    const why = explain(report, stderr);
    expect(rulesWith(report, 'failed', 'warned'), why).toEqual(['ENC-API-PREFIX', 'INFO-TOKEN-PRESENTATION']);
    expect(checksWith(report, 'failed', 'warned'), why).toEqual(['tokens.info-presentations', 'versioning.api-prefix']);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'tokens.info-presentations')?.message).toMatch(
      /expected 200 with the token information response \(status: 200; contentType: text\/html; charset=utf-8\)/,
    );
    const aliases = report.checks.find((c) => c.id === 'tokens.info-deprecated-aliases');
    expect(aliases?.message).toMatch(
      /no token information endpoint: GET \S*\/oauth\/token\/info answered 200 with a web page, not JSON at start-up .*INFO-TOKEN-PRESENTATION/,
    );
    const status = new Map(report.rules.map((r) => [r.id, r.status]));
    for (const id of ['TOK-REFRESH-ROTATION', 'REV-REVOKES-TOKEN']) expect(status.get(id), id).toBe('passed');
    expect(code).toBe(1);
  }, 300_000);
});
