/**
 * Response shapes per operation from spec/openapi.yaml, judged on the traffic where a violation
 * has one owner (a component naming one rule, nothing release-bound inside): a key set
 * publishing private members breaks OIDC-JWKS, a revocation answered with members or no JSON
 * breaks REV-EMPTY-OBJECT; the right answers pass them; shapes with several owners are left to
 * the specific assertions.
 */
import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import { judgedShapes } from '../../suites/proxy/shapes.js';
import type { Verdict } from '../../suites/proxy/recorder.js';

const failed = (verdicts: Verdict[]) => [...new Set(verdicts.filter((v) => !v.ok).map((v) => v.rule))].sort();
const passed = (verdicts: Verdict[]) => new Set(verdicts.filter((v) => v.ok).map((v) => v.rule));

function answer(method: string, target: string, status: number, body: string): Observed {
  return {
    method,
    target,
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    requestBody: Buffer.from('token=t'),
    status,
    responseHeaders: new Headers({ 'content-type': 'application/json' }),
    responseBody: Buffer.from(body),
    at: 0,
  };
}

const KEY = { kty: 'RSA', kid: 'k1', use: 'sig', alg: 'RS256', n: 'AQAB', e: 'AQAB' };

describe('response shapes per operation', () => {
  it('judges the one-owner shapes only', () => {
    const judged = [...judgedShapes()].map(([key, s]) => `${key} ${s.name} ${s.rule}`);
    expect(judged).toEqual(
      expect.arrayContaining([
        'GET /oauth/discovery/keys 200 Jwks OIDC-JWKS',
        'POST /oauth/revoke 200 RevokeResponse REV-EMPTY-OBJECT',
      ]),
    );
    // Several owners (token info), release-bound members or REST components: not judged by shape.
    expect(judged.join('\n')).not.toMatch(/TokenInfo|Project|Issue|\/api\//);
  });

  it('a key set with private members breaks OIDC-JWKS; a public one passes it', () => {
    const keys = (key: object) => answer('GET', '/oauth/discovery/keys', 200, JSON.stringify({ keys: [key] }));
    expect(failed(judgeExchange(keys({ ...KEY, d: 'secret', p: 'x', q: 'y' }), createFlows()))).toEqual(['OIDC-JWKS']);
    const good = judgeExchange(keys(KEY), createFlows());
    expect(failed(good)).toEqual([]);
    expect(passed(good)).toContain('OIDC-JWKS');
  });

  it('a revocation answered with members or without JSON breaks REV-EMPTY-OBJECT; {} passes it', () => {
    expect(failed(judgeExchange(answer('POST', '/oauth/revoke', 200, '{"revoked":true}'), createFlows()))).toEqual([
      'REV-EMPTY-OBJECT',
    ]);
    expect(failed(judgeExchange(answer('POST', '/oauth/revoke', 200, ''), createFlows()))).toEqual([
      'REV-EMPTY-OBJECT',
    ]);
    expect(passed(judgeExchange(answer('POST', '/oauth/revoke', 200, '{}'), createFlows()))).toContain(
      'REV-EMPTY-OBJECT',
    );
  });

  it('a project or feature flag still carrying a removed attribute breaks its VER rule; without it, passes', () => {
    const project = (body: object) => ({
      ...answer('GET', '/api/v4/projects/7', 200, JSON.stringify(body)),
      requestBody: undefined,
    });
    expect(
      failed(
        judgeExchange(project({ id: 7, path_with_namespace: 'g/p', ci_job_token_scope_enabled: true }), createFlows()),
      ),
    ).toEqual(['VER-CI-JOB-TOKEN-SCOPE-REMOVED']);
    expect(passed(judgeExchange(project({ id: 7, path_with_namespace: 'g/p' }), createFlows()))).toContain(
      'VER-CI-JOB-TOKEN-SCOPE-REMOVED',
    );
    const flags = {
      ...answer(
        'GET',
        '/api/v4/projects/g%2Fp/feature_flags',
        200,
        JSON.stringify([{ name: 'f', active: true, version: 'new_version_flag' }]),
      ),
      requestBody: undefined,
    };
    expect(failed(judgeExchange(flags, createFlows()))).toEqual(['VER-FEATURE-FLAG-VERSION-REMOVED']);
  });

  it('the legacy key set alias answered 200 breaks VER-JWKS-REMOVED; 404 passes it', () => {
    const legacy = (status: number) => ({ ...answer('GET', '/-/jwks', status, '{"keys":[]}'), requestBody: undefined });
    expect(failed(judgeExchange(legacy(200), createFlows()))).toEqual(['VER-JWKS-REMOVED']);
    expect(passed(judgeExchange(legacy(404), createFlows()))).toContain('VER-JWKS-REMOVED');
  });
});
