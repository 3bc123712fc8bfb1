/**
 * A provider that issues a code to an anonymous authorization request a redirect later (a gateway
 * first, then the client's redirect_uri with a code): grants.sign-in-required fails the sentence it
 * breaks, GRANT-CONSENT (a must: a code no signed-in user approved), at whichever hop the code comes.
 * Before, only the first redirect was looked at and the second was blamed as leaving the provider
 * (GRANT-SIGN-IN-REQUIRED, a should: the run ended 0). The gateway may hand the code over by a page
 * that refreshes to the redirect_uri (`<meta http-equiv="refresh">`, IdentityServer's Redirect page)
 * as well as by a redirect: the same must fails. Before, the refresh was not followed and the page
 * was blamed for not being a sign-in form (GRANT-SIGN-IN-REQUIRED warned, the code unseen, exit 0).
 * A refresh the drivers do not follow (a Refresh header's in place of the tag, one on a 401 page,
 * one after 11 s) is judged for its code all the same: before, each warned only, exit 0 (review 14).
 */
import { describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { explain, runAgainst, startProvider, type Reply } from './provider.js';

describe('a code issued before the sign-in, a redirect later', () => {
  it.each(['redirect', 'refresh', 'Refresh header', 'refresh on a 401', 'refresh after 11 s'] as const)(
    'by a %s: fails GRANT-CONSENT for the code (exit 1), not GRANT-SIGN-IN-REQUIRED for leaving the provider',
    async (way) => {
      const provider = await startProvider((method, url, sim) => {
        if (method !== 'GET') return undefined;
        if (url.pathname === '/oauth/authorize' && url.searchParams.get('state') === 'anonymous')
          return () => ({ status: 302, headers: { location: `/gate?${url.searchParams}` } });
        if (url.pathname === '/gate')
          return (): Reply => {
            const app = [...sim.store.applications.values()].find((a) => a.confidential)!;
            const back = new URL(url.searchParams.get('redirect_uri') ?? app.redirectUris[0]);
            back.searchParams.set('code', 'issued-before-any-sign-in');
            back.searchParams.set('state', 'anonymous');
            if (way === 'redirect') return { status: 302, headers: { location: back.href } };
            if (way === 'Refresh header')
              return { status: 200, headers: { 'content-type': 'text/html', refresh: `0;url=${back.href}` }, body: '' };
            const to = back.href.replace(/&/g, '&amp;');
            return {
              status: way === 'refresh on a 401' ? 401 : 200,
              headers: { 'content-type': 'text/html; charset=utf-8' },
              body: `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="${way === 'refresh after 11 s' ? 11 : 0};url=${to}" data-url="${to}"></head><body><p>You are now being returned to the application.</p></body></html>`,
            };
          };
        return undefined;
      });
      try {
        const checks = allChecks().filter((c) => c.id === 'grants.sign-in-required');
        const { code, report, stderr } = await runAgainst(provider, { runs: '1' }, checks);
        const check = report.checks.find((c) => c.id === 'grants.sign-in-required');
        expect(check?.status, explain(report, stderr)).toBe('failed');
        expect(check?.broken, explain(report, stderr)).toEqual(['GRANT-CONSENT']);
        expect(check?.message, explain(report, stderr)).toMatch(/no code may be issued before the user signed in/);
        expect(code).toBe(1);
      } finally {
        await provider.close();
      }
    },
  );
});
