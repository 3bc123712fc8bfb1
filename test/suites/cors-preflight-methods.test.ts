/**
 * Which methods a preflight answer allows, read as a browser reads Access-Control-Allow-Methods
 * (Fetch, CORS-preflight fetch): a CORS-safelisted method (GET, HEAD, POST) whether listed or not;
 * any other only listed, or by `*` where the answer does not allow credentials (with credentials,
 * `*` is the name of a method). The endpoints with preflight take POST and GET only, so the other
 * methods are asked of expectPreflightAnswer directly: the assertion must still be able to fail.
 */
import { describe, expect, it } from 'vitest';
import { expectPreflightAnswer } from '../../suites/cors/checks.js';
import type { HttpResponse } from '../../suites/types.js';
import { recording } from './fakes.js';

const FROM = 'https://spa.example';

/** The rules expectPreflightAnswer failed on a 204 preflight answer with `headers`, for `method`. */
function failedRules(method: string, headers: Record<string, string>): string[] {
  const { t, failed } = recording();
  const res = { status: 204, headers: new Headers({ 'access-control-allow-origin': '*', ...headers }) } as HttpResponse;
  try {
    expectPreflightAnswer(t, res, { path: '/oauth/token', method, from: FROM, asked: [] });
  } catch {
    // t.expect ends the judgement at its first failure, as in a check.
  }
  return [...new Set(failed)];
}

describe('the methods a preflight answer allows (Fetch)', () => {
  it('a safelisted method is allowed whether listed or not', () => {
    for (const method of ['POST', 'GET', 'HEAD']) {
      expect(failedRules(method, {})).toEqual([]);
      expect(failedRules(method, { 'access-control-allow-methods': 'PUT, OPTIONS' })).toEqual([]);
    }
  });

  it('`*` allows any method where the answer does not allow credentials', () => {
    expect(failedRules('PUT', { 'access-control-allow-methods': '*' })).toEqual([]);
    expect(failedRules('DELETE', { 'access-control-allow-methods': 'GET, *' })).toEqual([]);
    expect(
      failedRules('PUT', { 'access-control-allow-methods': '*', 'access-control-allow-credentials': 'false' }),
    ).toEqual([]);
  });

  it('another method must be listed: `*` with credentials allowed is no wildcard', () => {
    expect(failedRules('PUT', { 'access-control-allow-methods': 'GET, POST' })).toEqual(['CORS-PREFLIGHT']);
    expect(failedRules('PUT', {})).toEqual(['CORS-PREFLIGHT']);
    expect(
      failedRules('PUT', {
        'access-control-allow-origin': FROM,
        'access-control-allow-methods': '*',
        'access-control-allow-credentials': 'true',
      }),
    ).toEqual(['CORS-PREFLIGHT']);
  });
});
