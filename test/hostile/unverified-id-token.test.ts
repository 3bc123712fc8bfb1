/**
 * oidc.userinfo compares the userinfo sub with the id_token's: the id_token is its premise, not its
 * subject (review 29, defect 3). An id_token the published keys do not verify (its header rewritten
 * after signing), one without sub, or a key set that cannot be read is failed once, on the rule it
 * breaks, by the check that owns it (oidc.id-token, oidc.jwks); oidc.userinfo is untested, naming
 * that check. Before, oidc.userinfo failed on the same sentence, and OIDC-USERINFO with it.
 */
import { describe, expect, it } from 'vitest';
import {
  blamed,
  idTokenClaims,
  jsonOf,
  proxyForTests,
  runRewritten,
  setJson,
  type Rewrite,
} from '../independent/oauth-proxy.js';

const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** Every id_token's protected header with one member more, its signature kept: it no longer verifies. */
const headerRewritten: Rewrite['answer'] = (asked, answer) => {
  const body = asked.url.pathname === '/oauth/token' ? jsonOf(answer) : undefined;
  if (typeof body?.id_token !== 'string') return false;
  const [header, claims, signature] = body.id_token.split('.');
  const rewritten = { ...JSON.parse(Buffer.from(header, 'base64url').toString()), x: 1 } as object;
  setJson(answer, { ...body, id_token: `${b64(JSON.stringify(rewritten))}.${claims}.${signature}` });
  return true;
};

/** A key set whose keys member is no array. */
const keysNotAList: Rewrite['answer'] = (asked, answer) => {
  if (asked.url.pathname !== '/oauth/discovery/keys' || asked.method !== 'GET') return false;
  setJson(answer, { keys: {} });
  return true;
};

describe('oidc.userinfo when the id_token it compares with cannot be read', () => {
  const proxy = proxyForTests();

  it.each([
    ['an id_token whose signature does not verify', headerRewritten, 'oidc.id-token', 'OIDC-ID-TOKEN-SIGNATURE'],
    [
      'an id_token without sub, signed by the published key',
      idTokenClaims(({ sub: _sub, ...claims }) => claims),
      'oidc.id-token',
      'OIDC-ID-TOKEN-CLAIMS',
    ],
    ['a key set whose keys are no list', keysNotAList, 'oidc.jwks', 'OIDC-JWKS'],
  ] as const)(
    '%s: fails once, by the check that owns the rule; oidc.userinfo is untested, naming it',
    async (_what, answer, owner, rule) => {
      const { code, report, why } = await runRewritten(proxy(), { answer }, 'unverified-id-token', [
        owner,
        'oidc.userinfo',
      ]);
      expect(
        blamed(report).map((v) => `${v.check} ${v.rule}`),
        why,
      ).toEqual([`${owner} ${rule}`]);
      const userinfo = report.checks.find((c) => c.id === 'oidc.userinfo');
      expect(userinfo?.status, why).toBe('skipped');
      expect(userinfo?.message, why).toContain(`(${owner} reports it on ${rule})`);
      expect(report.rules.find((r) => r.id === 'OIDC-USERINFO')?.status, why).toBe('skipped');
      expect(code, why).toBe(1);
    },
    120_000,
  );
});
