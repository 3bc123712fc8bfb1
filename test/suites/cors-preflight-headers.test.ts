/**
 * Which request headers a preflight answer grants, read as a browser reads
 * Access-Control-Allow-Headers (Fetch, CORS-preflight fetch): a header listed by name; any other
 * by `*` only where the answer does not allow credentials (with credentials, `*` is a header's
 * name), and Authorization never by `*`: it must be listed by name.
 */
import { describe, expect, it } from 'vitest';
import { expectNotGranted, expectPreflightAnswer } from '../../suites/cors/checks.js';
import type { HttpResponse } from '../../suites/types.js';
import { recording } from './fakes.js';

const FROM = 'https://spa.example';

const answer = (headers: Record<string, string>) =>
  ({ status: 204, headers: new Headers({ 'access-control-allow-origin': FROM, ...headers }) }) as HttpResponse;

/** The rules expectPreflightAnswer failed for a POST asking `asked`, on a 204 answer with `headers`. */
function listFailed(asked: string[], headers: Record<string, string>): string[] {
  const { t, failed } = recording();
  try {
    expectPreflightAnswer(t, answer(headers), { path: '/oauth/token', method: 'POST', from: FROM, asked });
  } catch {
    // the first expect that failed ended it
  }
  return [...new Set(failed)];
}

/** Did expectNotGranted find `header` granted by an answer with `headers`? */
function granted(header: string, headers: Record<string, string>): boolean {
  const { t, failed } = recording();
  try {
    expectNotGranted(t, answer(headers), '/oauth/token', header);
  } catch {
    // granted: the failure is recorded
  }
  return failed.length > 0;
}

const CREDENTIALS = { 'access-control-allow-credentials': 'true' };

describe('the headers a preflight answer grants (Fetch)', () => {
  it('a header listed by name is granted, with or without credentials', () => {
    const listed = { 'access-control-allow-headers': 'Authorization, Content-Type' };
    expect(listFailed(['Authorization', 'Content-Type'], listed)).toEqual([]);
    expect(listFailed(['Authorization', 'Content-Type'], { ...listed, ...CREDENTIALS })).toEqual([]);
  });

  it('`*` never covers Authorization: it must be listed by name', () => {
    expect(listFailed(['Authorization'], { 'access-control-allow-headers': '*' })).toEqual([
      'CORS-ALLOWED-HEADERS-LIST',
    ]);
    expect(listFailed(['Authorization'], { 'access-control-allow-headers': '*, Authorization' })).toEqual([]);
    expect(granted('Authorization', { 'access-control-allow-headers': '*' })).toBe(false);
  });

  it('`*` grants another header only where the answer does not allow credentials', () => {
    expect(listFailed(['Content-Type'], { 'access-control-allow-headers': '*' })).toEqual([]);
    expect(granted('X-Custom-Header', { 'access-control-allow-headers': '*' })).toBe(true);
    expect(listFailed(['Content-Type'], { 'access-control-allow-headers': '*', ...CREDENTIALS })).toEqual([
      'CORS-ALLOWED-HEADERS-LIST',
    ]);
    expect(granted('X-Custom-Header', { 'access-control-allow-headers': '*', ...CREDENTIALS })).toBe(false);
  });
});
