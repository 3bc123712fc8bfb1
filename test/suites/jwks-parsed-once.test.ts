/**
 * A key set is parsed once per session and body: every check that reads it (oidc.jwks,
 * oidc.id-token, oidc.userinfo-signed, the legacy alias's...) parsed it anew, and a set of 2.7
 * million `{}` keys in 8 MB cost about 181 MB a parse.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchJwks } from '../../suites/oidc/support.js';
import type { HttpResponse } from '../../suites/types.js';
import { fakeCheckContext } from './fakes.js';

const answer = (text: string): HttpResponse => ({
  status: 200,
  headers: new Headers({ 'content-type': 'application/json' }),
  text,
  url: 'http://127.0.0.1:1/oauth/discovery/keys',
  json: <T>() => JSON.parse(text) as T,
});

/** Checks of one session (one config), each fetching the key set `texts` answers in turn. */
function session(texts: string[]) {
  const config = { baseUrl: 'http://127.0.0.1:1' };
  let n = 0;
  const http = { get: () => Promise.resolve(answer(texts[Math.min(n++, texts.length - 1)])) };
  return () => fetchJwks(fakeCheckContext({ config, http }));
}

afterEach(() => vi.restoreAllMocks());

describe('the key set parsed once per session and body', () => {
  const SET = JSON.stringify({ keys: [{ kty: 'EC', kid: 'a' }, {}, {}] });
  const OTHER = JSON.stringify({ keys: [{ kty: 'EC', kid: 'b' }] });

  it('three checks of a session reading the same set parse it once, and read the same keys', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const check = session([SET]);
    const sets = [await check(), await check(), await check()];
    expect(parse.mock.calls.filter(([text]) => text === SET)).toHaveLength(1);
    expect(sets.map((s) => s.keys.map((k) => k.kid ?? null))).toEqual(Array(3).fill(['a', null, null]));
  });

  it('another body, or another session, is parsed for itself', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const check = session([SET, OTHER, SET]);
    expect((await check()).keys[0].kid).toBe('a');
    expect((await check()).keys[0].kid).toBe('b');
    expect((await check()).keys[0].kid).toBe('a');
    expect((await session([SET])()).keys[0].kid).toBe('a');
    expect(parse.mock.calls.filter(([text]) => text === OTHER)).toHaveLength(1);
    // The session's own once, the other session's once.
    expect(parse.mock.calls.filter(([text]) => text === SET)).toHaveLength(2);
  });

  it('keeps at most one answer at the body limit parsed: a target answering each check another flood holds one', async () => {
    // Two sets of 5 MB each (their `{}` keys padded by spaces): together past the 8 MiB body limit.
    const big = (kid: string) => JSON.stringify({ keys: [{ kty: 'EC', kid }] }).replace('{', `{${' '.repeat(5 << 20)}`);
    const [first, second] = [big('first'), big('second')];
    const parse = vi.spyOn(JSON, 'parse');
    const check = session([first, second, first, SET, SET]);
    for (const kid of ['first', 'second', 'first']) expect((await check()).keys[0].kid).toBe(kid);
    // The first went when the second came, so it was parsed again; ordinary sets stay beside a big one.
    expect(parse.mock.calls.filter(([text]) => text === first)).toHaveLength(2);
    expect(parse.mock.calls.filter(([text]) => text === second)).toHaveLength(1);
    await check();
    await check();
    expect(parse.mock.calls.filter(([text]) => text === SET)).toHaveLength(1);
  });
});
