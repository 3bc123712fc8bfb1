/**
 * Which headers an exchange shown in a report keeps: the target chooses how many headers it sends
 * and their names, never which of them the report shows. The protocol headers (the ones the API
 * description declares, and framing) take the budget first; the rest follow in recorded order.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, KEPT_HEADERS, LEFT_OUT_HEADERS } from '../../suites/runner/redact.js';
import { responseHeaderNames } from '../../spec/index.js';

/** The response headers of `headers` as an exchange shown keeps them. */
const shown = (headers: Record<string, string>) =>
  createRedactor().exchange({
    request: { method: 'POST', url: 'http://t/oauth/token', headers: {} },
    response: { status: 200, headers, body: '{}' },
  }).response!.headers;

const judged = {
  'cache-control': 'no-cache',
  'content-type': 'application/json',
  'www-authenticate': 'Bearer error="invalid_token"',
};
/** `count` one-byte headers named to sort before every protocol header. */
const filler = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`a-${String(i).padStart(2, '0')}`, '1']));

describe('the headers an exchange shown keeps (review 19)', () => {
  it('64 one-byte headers sorted before the judged ones leave none of them out', () => {
    const kept = shown({ ...filler(KEPT_HEADERS.count), ...judged });
    expect(kept).toMatchObject(judged);
    expect(Object.keys(kept).filter((name) => name !== LEFT_OUT_HEADERS)).toHaveLength(KEPT_HEADERS.count);
    expect(kept[LEFT_OUT_HEADERS]).toBe('3 more headers (15 bytes) left out');
  });

  it('two long headers and one that fills the characters to the last one before them leave none of them out', () => {
    const kept = shown({ 'a-1': 'x'.repeat(4000), 'a-2': 'y'.repeat(4000), 'a-3': 'z'.repeat(183), ...judged });
    expect(kept).toMatchObject(judged);
    expect(kept[LEFT_OUT_HEADERS]).toMatch(/^\d+ more headers? \(\d+ bytes\) left out$/);
  });

  it('every pagination header and Location are protocol headers, whatever their case; order is as recorded', () => {
    const protocol = { Link: '<http://t/?page=2>; rel="next"', 'X-Total': '9', 'X-Next-Page': '2', Location: '/x' };
    const kept = shown({ ...filler(KEPT_HEADERS.count), ...protocol });
    expect(kept).toMatchObject(protocol);
    expect(Object.keys(kept).slice(0, 3)).toEqual(['a-00', 'a-01', 'a-02']);
  });

  it('the protocol headers are read from the API description: its pagination and challenge headers are among them', () => {
    expect(responseHeaderNames()).toEqual(
      expect.arrayContaining([
        'link',
        'x-total',
        'x-total-pages',
        'x-page',
        'x-per-page',
        'x-next-page',
        'x-prev-page',
      ]),
    );
    expect(responseHeaderNames()).toEqual(
      expect.arrayContaining(['cache-control', 'pragma', 'www-authenticate', 'location']),
    );
  });

  it('a part with few headers keeps them all, in the order recorded, with no note', () => {
    expect(Object.entries(shown({ 'x-b': '1', 'content-type': 'text/plain', 'x-a': '2' }))).toEqual([
      ['x-b', '1'],
      ['content-type', 'text/plain'],
      ['x-a', '2'],
    ]);
  });
});
