/** hasBearerChallenge: a Bearer challenge among several, in any case, never a word inside a quoted string. */
import { describe, expect, it } from 'vitest';
import { hasBearerChallenge, namesError } from '../../suites/shared/challenge.js';
import type { HttpResponse } from '../../suites/types.js';

const answer = (header?: string, body = '') =>
  ({
    headers: new Headers({ ...(header ? { 'www-authenticate': header } : {}), 'content-type': 'application/json' }),
    text: body,
  }) as HttpResponse;

describe('hasBearerChallenge', () => {
  it.each([
    'Bearer',
    'bearer realm="idp"',
    'BEARER error=invalid_token',
    'Basic realm="api", Bearer error="invalid_token", error_description="The token expired"',
    'Basic realm="a\\"b", bearer',
  ])('finds the Bearer challenge in %s', (header) => expect(hasBearerChallenge(answer(header))).toBe(true));

  it.each([
    undefined,
    'Basic realm="api"',
    'Basic realm="Bearer tokens, Bearer"',
    'Basic bearer=1',
    'Basic realm="x", bearer = y',
    'Bearerish realm="x"',
    'Negotiate',
  ])('finds none in %s', (header) => expect(hasBearerChallenge(answer(header))).toBe(false));
});

describe('namesError: the error in the challenge (RFC 6750 §3) or in the JSON body', () => {
  it.each([
    ['Bearer error="insufficient_scope", error_description="needs openid"', ''],
    ['Basic realm="x", bearer ERROR=insufficient_scope', ''],
    ['Bearer realm="idp"', '{"error":"insufficient_scope"}'],
    [undefined, '{"error":"insufficient_scope"}'],
  ])('finds insufficient_scope in %s %s', (header, body) =>
    expect(namesError(answer(header, body), 'insufficient_scope')).toBe(true),
  );

  it.each([
    ['Bearer error="invalid_token"', ''],
    ['Bearer realm="error=insufficient_scope"', ''],
    ['Bearer error_description="insufficient_scope"', ''],
    ['Bearer x_error="insufficient_scope"', '{"error":"invalid_token"}'],
    [undefined, ''],
  ])('finds none in %s %s', (header, body) =>
    expect(namesError(answer(header, body), 'insufficient_scope')).toBe(false),
  );
});
