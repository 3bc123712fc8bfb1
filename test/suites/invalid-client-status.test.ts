/**
 * ERR-TOKEN-STATUS judges the status against the error the answer carries (review 28, defect 5):
 * "invalid_client which answers 401 or 400". A 401 invalid_client where invalid_grant was due
 * breaks the rule that named invalid_grant, once; before, ERR-TOKEN-STATUS warned "expected
 * status 400, got 401" on it as well.
 */
import { describe, expect, it } from 'vitest';
import { expectOAuthError } from '../../suites/shared/oauth.js';
import type { HttpResponse } from '../../suites/types.js';
import { recording } from './fakes.js';

function answer(status: number, body: Record<string, unknown>): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: new Headers({ 'content-type': 'application/json' }),
    text,
    json: <T>() => JSON.parse(text) as T,
    url: 'http://127.0.0.1:1/oauth/token',
    endpoint: '/oauth/token',
  };
}

const DUE = {
  status: 400,
  error: 'invalid_grant',
  rules: ['GRANT-CODE-UNKNOWN' as const],
  errorRules: ['ERR-INVALID-GRANT' as const],
};

describe('the status of a token error, judged against the error it carries', () => {
  it.each([401, 400])(
    'an invalid_client %i where invalid_grant was due breaks the code rule, not ERR-TOKEN-STATUS',
    (status) => {
      const { t, failed } = recording();
      expectOAuthError(
        t,
        answer(status, { error: 'invalid_client', error_description: 'Client authentication failed' }),
        DUE,
        'exchange',
      );
      expect(failed).toEqual(['ERR-INVALID-GRANT']);
    },
  );

  it('an invalid_client answered 403 still breaks ERR-TOKEN-STATUS', () => {
    const { t, failed } = recording();
    expectOAuthError(t, answer(403, { error: 'invalid_client', error_description: 'no' }), DUE, 'exchange');
    expect(failed).toEqual(['ERR-TOKEN-STATUS', 'ERR-INVALID-GRANT']);
  });

  it('invalid_grant answered 401 breaks ERR-TOKEN-STATUS', () => {
    const { t, failed } = recording();
    expectOAuthError(t, answer(401, { error: 'invalid_grant', error_description: 'no' }), DUE, 'exchange');
    expect(failed).toEqual(['ERR-TOKEN-STATUS']);
  });
});
