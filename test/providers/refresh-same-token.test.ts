/**
 * Refresh tokens that are not rotated but handed back unchanged, as Okta's are with "Rotate token
 * after every use" off (and Entra ID's and Salesforce's non-rotating ones would be if echoed): every
 * refresh answer carries the very refresh token the client presented, which keeps working, while
 * the access token is new each time. RFC 6749 §6 allows it ("MAY issue a new refresh token"); the
 * source does not (L92: a refresh returns a new refresh token and the old one is invalidated). Each
 * of the two sentences it breaks is one rule: the pair not new is `TOK-REFRESH-ROTATION`, the
 * presented token still redeemed `TOK-REFRESH-OLD-REFUSED`, once each; every other check that uses
 * a refresh token (its expiry, its client binding, its revocation) passes on the token it is given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import type { Loopback } from '../suites/loopback.js';
import { answeringPosts, checksWith, explain, rulesWith, runChecks } from './provider.js';

/** The checks that redeem, revoke or bind a refresh token. */
const CHECKS = [
  'grants.refresh-rotation',
  'grants.refresh-after-expiry',
  'grants.refresh-client-bound',
  'tokens.revoke-refresh-token',
];

let front: Loopback & { sim: Sim };
/**
 * The refresh token the client holds (the first of its grant) to the simulator's current one: the
 * provider hands back the first and redeems it as the current, so it never changes for the client.
 */
const current = new Map<string, string>();
/** Refresh answers that handed the presented token back. */
let echoed = 0;

beforeAll(async () => {
  front = await answeringPosts(['/oauth/token', '/oauth/revoke'], async ({ url, form }, simulator) => {
    const field = url.pathname === '/oauth/token' ? 'refresh_token' : 'token';
    const held = form.get(field);
    const now = held ? current.get(held) : undefined;
    if (now) form.set(field, now);
    const answer = await simulator(now ? form : undefined);
    if (!held || field !== 'refresh_token' || form.get('grant_type') !== 'refresh_token') return answer;
    const body = (await answer.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (typeof body?.refresh_token !== 'string') return new Response(JSON.stringify(body), answer);
    current.set(held, body.refresh_token);
    echoed++;
    return new Response(JSON.stringify({ ...body, refresh_token: held }), answer);
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe('refresh answers that hand the presented refresh token back (Okta, rotation off)', () => {
  it('fails TOK-REFRESH-ROTATION and TOK-REFRESH-OLD-REFUSED alone; the other refresh checks pass', async () => {
    echoed = 0;
    const { code, report, stderr } = await runChecks(front, CHECKS);
    const why = explain(report, stderr);
    expect(echoed, why).toBeGreaterThanOrEqual(3);
    expect(rulesWith(report, 'failed'), why).toEqual(['TOK-REFRESH-OLD-REFUSED', 'TOK-REFRESH-ROTATION']);
    expect(rulesWith(report, 'warned', 'errored'), why).toEqual([]);
    expect(checksWith(report, 'failed'), why).toEqual(['grants.refresh-rotation']);
    expect(checksWith(report, 'warned', 'errored', 'skipped'), why).toEqual([]);
    expect(code, why).toBe(1);
  }, 120_000);
});
