/**
 * An authorization endpoint that shows a consent page of its own to a request carrying a parameter
 * it does not know (grants.authorize-unknown-parameter's `conformance_probe=1`), before its usual
 * consent: "Sample App would like to access your account", one Authorize button that sends the
 * request again, the very same (the page shown once a run) or marked as seen. It ignores the
 * parameter, as RFC 6749 §3.1 says: GRANT-AUTHORIZE-UNKNOWN-PARAMS passes with every driver that
 * plays pages. Before, the browser driver played one consent page a
 * visit and failed the must for the second (the form driver played both); then, the very same
 * request sent again, it took the second page for the first shown again (its URL): a decision is
 * known again by its form's action, control and field names, as the form driver knows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain, PAGE_DRIVERS, rulesWith, runWithDriver, startProvider, type Provider } from './provider.js';
import { page } from './sign-in-journey.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

let shown = 0;
/** How the page's Authorize sends the request again: the very same, or with `seen=1`. */
let again: 'same' | 'marked' = 'same';
let provider: Provider;

beforeAll(async () => {
  provider = await startProvider((method, url) => {
    if (method !== 'GET' || url.pathname !== '/oauth/authorize') return undefined;
    // The extra page once: a run's first probe, or a request not yet marked.
    const seen = again === 'same' ? shown > 0 : url.searchParams.has('seen');
    if (!url.searchParams.has('conformance_probe') || seen) return undefined;
    shown++;
    const hidden = [...url.searchParams, ...(again === 'marked' ? [['seen', '1']] : [])]
      .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
      .join('');
    return () => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: page(
        'Sample App',
        `<p>Sample App would like to access your account.</p><form method="get" action="/oauth/authorize">${hidden}<button type="submit">Authorize</button></form>`,
      ),
    });
  });
}, 60_000);
afterAll(() => provider?.close());

describe('an extra consent page for a request with a parameter the provider does not know', () => {
  it.each(PAGE_DRIVERS.flatMap((kind) => (['same', 'marked'] as const).map((how) => ({ kind, how }))))(
    '$kind driver, the request sent again $how: both consent pages are played and the must passes',
    async ({ kind, how }) => {
      shown = 0;
      again = how;
      const { code, report, stderr } = await runWithDriver(provider, kind, ['grants.authorize-unknown-parameter']);
      const why = explain(report, stderr);
      expect(shown, why).toBe(1);
      expect(rulesWith(report, 'passed'), why).toEqual(['GRANT-AUTHORIZE-UNKNOWN-PARAMS']);
      expect(code, why).toBe(0);
    },
  );
});
