/**
 * redirectParams and granted (suites/drivers/hand-over.ts): the one reader of an authorization
 * response, for the checks and the drivers alike, in the query or in the fragment. Pure.
 */
import { describe, expect, it } from 'vitest';
import { granted, redirectParams } from '../../suites/drivers/hand-over.js';

const at = (href: string) => new URL(href);

describe('redirectParams: where the authorization response stands', () => {
  it('the query when it answers, else the fragment (response_mode=fragment, a hybrid or implicit answer)', () => {
    expect(redirectParams(at('https://app.test/cb?code=c&state=s#x=1')).get('code')).toBe('c');
    expect(redirectParams(at('https://app.test/cb?keep=1#code=c&state=s')).get('state')).toBe('s');
    expect(redirectParams(at('https://app.test/cb#error=access_denied')).get('error')).toBe('access_denied');
    expect(redirectParams(at('https://app.test/cb?keep=1#section')).get('keep')).toBe('1');
  });
});

describe('granted: a code or a token handed over', () => {
  it.each([
    ['https://app.test/cb?code=c', true],
    ['https://app.test/cb#code=c&id_token=t', true],
    ['https://app.test/cb#access_token=t&token_type=Bearer', true],
    ['https://app.test/cb?error=access_denied#code=c', false],
    ['https://app.test/cb#error=access_denied', false],
    ['https://app.test/cb?state=s', false],
  ])('%s: %s', (href, expected) => {
    expect(granted(at(href))).toBe(expected);
  });

  it('no redirect is no grant', () => {
    expect(granted(undefined)).toBe(false);
  });
});
