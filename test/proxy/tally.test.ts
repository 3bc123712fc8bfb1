/**
 * The proxy's per-rule count is of exchanges, not of assertions: a rule is broken by an exchange
 * when any of its assertions on it failed, held when all passed, and counted once either way
 * (review 23: three refreshes read "6 of 9 exchanges broke it", one form-encoded token answer
 * "2 of 4").
 */
import { describe, expect, it } from 'vitest';
import { createTally, proxyReport } from '../../suites/proxy/tally.js';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';

const messageOf = (tally: ReturnType<typeof createTally>, rule: string) =>
  proxyReport(tally, { target: 'x', release: '18.0', offering: 'self-managed', startedAt: new Date(0) }).checks.find(
    (c) => c.id === `proxy.${rule}`,
  )?.message;

function token(status: number, contentType: string, body: string): Observed {
  return {
    method: 'POST',
    target: '/oauth/token',
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    requestBody: Buffer.from('grant_type=authorization_code&code=c&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb'),
    status,
    responseHeaders: new Headers({ 'content-type': contentType, 'cache-control': 'no-store' }),
    responseBody: Buffer.from(body),
    at: 1_000,
  };
}

describe('the tally of a rule', () => {
  it('counts each exchange once: broken if any of its assertions failed', () => {
    const tally = createTally();
    for (let i = 0; i < 3; i++)
      tally.add([
        { rule: 'TOK-ERROR-BODY', ok: false, message: 'no error member' },
        { rule: 'TOK-ERROR-BODY', ok: true },
        { rule: 'TOK-ERROR-BODY', ok: false, message: 'no error_description' },
      ]);
    tally.add([
      { rule: 'TOK-ERROR-BODY', ok: true },
      { rule: 'TOK-ERROR-BODY', ok: true },
    ]);
    expect(messageOf(tally, 'TOK-ERROR-BODY')).toBe('3 of 4 exchanges broke it: no error member; no error_description');
    const held = createTally();
    held.add([
      { rule: 'TOK-NO-STORE', ok: true },
      { rule: 'TOK-NO-STORE', ok: true },
    ]);
    held.add([{ rule: 'TOK-NO-STORE', ok: true }]);
    expect(messageOf(held, 'TOK-NO-STORE')).toBe('2 exchanges held to it');
  });

  it('three refusals without an OAuth error body, beside one with it, are 3 of 4 for ERR-OAUTH-BODY', () => {
    const tally = createTally();
    const flows = createFlows();
    for (let i = 0; i < 3; i++) tally.add(judgeExchange(token(400, 'application/json', '{"message":"no"}'), flows));
    tally.add(
      judgeExchange(token(400, 'application/json', '{"error":"invalid_grant","error_description":"no"}'), flows),
    );
    expect(messageOf(tally, 'ERR-OAUTH-BODY')).toMatch(/^3 of 4 exchanges broke it: /);
    expect(messageOf(tally, 'TOK-ERROR-BODY')).toMatch(/^3 of 4 exchanges broke it: /);
  });
});
