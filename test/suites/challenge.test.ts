/** hasBearerChallenge: a Bearer challenge among several, in any case, never a word inside a quoted string. */
import { describe, expect, it } from 'vitest';
import { hasBearerChallenge } from '../../suites/shared/challenge.js';
import type { HttpResponse } from '../../suites/types.js';

const answer = (header?: string) =>
  ({ headers: new Headers(header ? { 'www-authenticate': header } : {}) }) as HttpResponse;

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
