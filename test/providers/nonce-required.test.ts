/**
 * A provider that requires a nonce whenever openid is asked (OIDC Core makes it optional in the
 * code flow, but clients send one, and such providers exist): it redirects every openid request
 * without one with invalid_request. The harness sends a nonce with every openid request, so the
 * run is clean; and where a provider still refuses the authorization a check needs, the refusal is
 * blamed once, on GRANT-AUTHORIZE-PARAMS, never on the flow or userinfo rules the check was to prove.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  checksWith,
  erroredText,
  rulesWith,
  runAgainst,
  startProvider,
  type Deviation,
  type Reply,
} from './provider.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';

/** The error redirect of an authorization request the provider refuses (RFC 6749 §4.1.2.1). */
function refuse(url: URL, description: string): Reply {
  const back = new URL(url.searchParams.get('redirect_uri') ?? '');
  back.searchParams.set('error', 'invalid_request');
  back.searchParams.set('error_description', description);
  const state = url.searchParams.get('state');
  if (state !== null) back.searchParams.set('state', state);
  return { status: 302, headers: { location: back.href } };
}

/**
 * A well-formed openid authorization request: one a provider first checks in full (client,
 * redirect URI, response type, scopes, as RFC 6749 §4.1.2.1 orders it) and then refuses for openid.
 */
const asksOpenid = (method: string, url: URL, sim: Sim) => {
  if (method !== 'GET' || url.pathname !== '/oauth/authorize') return false;
  const q = url.searchParams;
  const scopes = (q.get('scope') ?? '').split(' ');
  const app = Object.values(targetConfig(sim, url.origin).applications ?? {}).find(
    (a) => a?.clientId === q.get('client_id'),
  );
  return (
    !!app &&
    app.redirectUri === q.get('redirect_uri') &&
    q.get('response_type') === 'code' &&
    scopes.every((s) => app.scopes.includes(s)) &&
    scopes.includes('openid')
  );
};

const nonceRequired: Deviation = (method, url, sim) =>
  asksOpenid(method, url, sim) && !url.searchParams.get('nonce') ? () => refuse(url, 'nonce is required') : undefined;

/** A provider whose OpenID Connect module is broken: every openid authorization is refused. */
const openidRefused: Deviation = (method, url, sim) =>
  asksOpenid(method, url, sim) ? () => refuse(url, 'the openid module is not configured') : undefined;

const started: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const p of started) await p.close();
});

describe('a provider requiring a nonce for openid', () => {
  it('is played cleanly: every openid request carries a nonce, nothing fails', async () => {
    const provider = await startProvider(nonceRequired);
    started.push(provider);
    const { code, report, stderr } = await runAgainst(provider, { suite: 'grants,tokens,oidc' });
    expect(rulesWith(report, 'failed', 'warned'), stderr.slice(-2000)).toEqual([]);
    expect(checksWith(report, 'errored'), erroredText(report)).toEqual([]);
    expect(provider.answered).toEqual([]);
    expect(code).toBe(0);
  }, 300_000);
});

describe('a provider refusing every openid authorization', () => {
  it('blames the refusal on GRANT-AUTHORIZE-PARAMS alone; the flow and userinfo rules are not failed', async () => {
    const provider = await startProvider(openidRefused);
    started.push(provider);
    const { report, stderr } = await runAgainst(provider, { suite: 'grants,tokens,oidc' });
    expect(provider.answered.length).toBeGreaterThan(0);
    expect(rulesWith(report, 'failed'), stderr.slice(-2000)).toEqual(['GRANT-AUTHORIZE-PARAMS']);
    // Its own should, and rightly: this provider refuses before anyone is asked to sign in.
    expect(rulesWith(report, 'warned')).toEqual(['GRANT-SIGN-IN-REQUIRED']);
    // Each check that needed a code failed on the refusal alone: the rules it was to prove are untested.
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toContain('oidc.userinfo');
    for (const c of failed) {
      expect(c.broken, c.id).toEqual(['GRANT-AUTHORIZE-PARAMS']);
      expect(c.message ?? '', c.id).toMatch(/invalid_request/);
    }
    expect(report.rules.find((r) => r.id === 'OIDC-USERINFO')?.status).toBe('untested');
  }, 300_000);
});
