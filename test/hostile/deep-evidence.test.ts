/**
 * What the target sends may end up in a failure's details (a JWT header's kid, a claim, a member
 * of a body), and JSON.parse takes nesting far deeper than anything that walks the value after it
 * (JSON.stringify overflows its stack). An id_token whose header is nested 200,000 deep once
 * crashed the run with a RangeError; the details are now bounded where failures are made, and the
 * run ends with its verdict and reports.
 */
import { describe, expect, it } from 'vitest';
import { createSign } from 'node:crypto';
import { exportPKCS8 } from 'jose';
import { signingKey } from '../../simulator/oauth/keys.js';
import { boundedDetails, DEEPER } from '../../suites/shared/bounded.js';
import { CheckFailure } from '../../suites/runner/errors.js';
import { describeFailure } from '../../suites/runner/session.js';
import { validateReport } from '../../reporters/index.js';
import { jsonOf, proxyForTests, runRewritten, setJson, type Rewrite } from '../independent/oauth-proxy.js';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('failure details are bounded', () => {
  it('cuts depth, entries, long strings and the total, keeps small values exactly', () => {
    const deep = JSON.parse(nested(200_000)) as unknown;
    const wide = Array.from({ length: 500 }, (_, i) => i);
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    const small = { kid: 'abc', keys: 1, list: [1, 'two', null, true], nested: { a: { b: 1 } } };
    const out = boundedDetails({ deep, wide, many, long: 'x'.repeat(100_000), big: 10n, ...small });
    expect(JSON.stringify(out).length).toBeLessThan(20_000);
    expect(JSON.stringify(out.deep)).toContain(DEEPER);
    expect((out.wide as unknown[]).length).toBe(51);
    expect((out.wide as unknown[])[50]).toBe('… 450 more not shown');
    expect(Object.keys(out.many as object)).toHaveLength(51);
    expect(out.long).toMatch(/^x{2000}… \(100000 characters\)$/);
    expect(out.big).toBe('10');
    expect({ kid: out.kid, keys: out.keys, list: out.list, nested: out.nested }).toEqual(small);
  });

  it('keeps a key named __proto__ a key', () => {
    const out = boundedDetails(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a failure made with deep details describes itself in one bounded line', () => {
    const failure = new CheckFailure('id_token names a kid that the key set does not publish', {
      kid: JSON.parse(nested(200_000)),
      rules: ['OIDC-ID-TOKEN-SIGNATURE'],
    });
    expect(failure.rules).toEqual(['OIDC-ID-TOKEN-SIGNATURE']);
    expect(describeFailure(failure).length).toBeLessThan(500);
  });
});

describe('an id_token whose header or claims are nested 200,000 deep', () => {
  const proxy = proxyForTests();

  it.each([
    ['the kid of its header', (_kid: string) => ({ header: `{"alg":"RS256","kid":${nested(200_000)}}`, claim: '' })],
    ['a claim', (kid: string) => ({ header: `{"alg":"RS256","kid":"${kid}"}`, claim: `,"x":${nested(200_000)}` })],
  ])(
    'in %s: the run ends with its verdict and a valid report',
    async (where, build) => {
      const rewrite: Rewrite = {
        async answer(asked, answer, sim) {
          const body = asked.url.pathname === '/oauth/token' ? jsonOf(answer) : undefined;
          if (typeof body?.id_token !== 'string') return false;
          const key = await signingKey(sim);
          const claims = Buffer.from(body.id_token.split('.')[1], 'base64url').toString();
          const { header, claim } = build(key.kid);
          const input = `${b64(header)}.${b64(claims.replace(/}$/, `${claim}}`))}`;
          const pem = await exportPKCS8(key.privateKey);
          const signature = createSign('RSA-SHA256').update(input).sign(pem).toString('base64url');
          setJson(answer, { ...body, id_token: `${input}.${signature}` });
          return true;
        },
      };
      const { code, report, why } = await runRewritten(proxy(), rewrite, 'deep-id-token', ['oidc.id-token']);
      expect(validateReport(report), why).toEqual([]);
      // A kid that is no string names no published key (a failure); a claim nobody reads changes nothing.
      const check = report.checks.find((c) => c.id === 'oidc.id-token');
      expect(check?.status, why).toBe(where === 'a claim' ? 'passed' : 'failed');
      expect(code, why).toBe(where === 'a claim' ? 0 : 1);
      expect(JSON.stringify(report).length).toBeLessThan(2_000_000);
    },
    120_000,
  );
});
