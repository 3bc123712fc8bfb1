import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import { remembered } from '../../suites/proxy/flows.js';
import type { Verdict } from '../../suites/proxy/recorder.js';

const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const TOKEN = {
  access_token: 'a'.repeat(64),
  token_type: 'bearer',
  expires_in: 7200,
  refresh_token: 'r'.repeat(64),
  scope: 'api',
  created_at: 1_700_000_000,
};

function token(
  form: Record<string, string>,
  status: number,
  body: unknown,
  headers: Record<string, string> = NO_STORE,
  at = 1_000,
): Observed {
  return {
    method: 'POST',
    target: '/oauth/token',
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    requestBody: Buffer.from(new URLSearchParams(form).toString()),
    status,
    responseHeaders: new Headers(headers),
    responseBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    at,
  };
}

const failed = (verdicts: Verdict[]) => [...new Set(verdicts.filter((v) => !v.ok).map((v) => v.rule))].sort();
const passed = (verdicts: Verdict[]) => new Set(verdicts.filter((v) => v.ok).map((v) => v.rule));

describe('passive judging of token exchanges', () => {
  const code = { grant_type: 'authorization_code', code: 'c1', redirect_uri: 'http://127.0.0.1/cb' };

  it('a good code exchange passes its response rules and breaks none', () => {
    const verdicts = judgeExchange(token(code, 200, TOKEN), createFlows());
    expect(failed(verdicts)).toEqual([]);
    for (const rule of ['TOK-NO-STORE', 'TOK-RESPONSE-JSON', 'TOK-TYPE-BEARER', 'ENC-RESPONSE-JSON'])
      expect(passed(verdicts)).toContain(rule);
  });

  it('a compressed answer (the client asked for it) is judged as its client reads it; one that will not decode, on its headers', () => {
    const plain = judgeExchange(token(code, 200, TOKEN), createFlows());
    const gzipped = { ...token(code, 200, TOKEN, { ...NO_STORE, 'content-encoding': 'gzip' }) };
    gzipped.responseBody = gzipSync(gzipped.responseBody!);
    const verdicts = judgeExchange(gzipped, createFlows());
    expect(failed(verdicts)).toEqual([]);
    expect([...passed(verdicts)].sort()).toEqual([...passed(plain)].sort());
    // Not gzip at all under a gzip label: nothing read of the body, nothing blamed for it.
    const broken = token(code, 200, TOKEN, { ...NO_STORE, 'content-encoding': 'gzip' });
    expect(failed(judgeExchange(broken, createFlows()))).toEqual([]);
  });

  it('a token response without no-store breaks TOK-NO-STORE only', () => {
    const verdicts = judgeExchange(token(code, 200, TOKEN, { 'content-type': 'application/json' }), createFlows());
    expect(failed(verdicts)).toEqual(['TOK-NO-STORE']);
    // One broken header hides nothing else.
    const both = { ...TOKEN, token_type: 'Bearer' };
    expect(
      failed(judgeExchange(token(code, 200, both, { 'content-type': 'application/json' }), createFlows())),
    ).toEqual(['TOK-NO-STORE', 'TOK-TYPE-LOWERCASE-BEARER']);
  });

  it('a refusal without no-store breaks TOK-ERROR-NO-STORE only, one with it passes it', () => {
    const refusal = { error: 'invalid_grant', error_description: 'The code is invalid.' };
    const bare = judgeExchange(token(code, 400, refusal, { 'content-type': 'application/json' }), createFlows());
    expect(failed(bare)).toEqual(['TOK-ERROR-NO-STORE']);
    const kept = judgeExchange(token(code, 400, refusal), createFlows());
    expect(failed(kept)).toEqual([]);
    expect(passed(kept)).toContain('TOK-ERROR-NO-STORE');
    expect(passed(kept)).not.toContain('TOK-NO-STORE');
  });

  it('a token answer not in JSON without no-store breaks TOK-NO-STORE (must), never the refusal rule', () => {
    // Form-encoded (GitHub's default), or no object at all: a 2xx without an error carries tokens,
    // as does any answer naming an access_token. Before, only a JSON access_token read as tokens,
    // and such an answer broke TOK-ERROR-NO-STORE (should) instead.
    const plain = { 'content-type': 'application/x-www-form-urlencoded' };
    const form = `access_token=${'a'.repeat(64)}&token_type=bearer&scope=api`;
    for (const [status, body] of [
      [200, form],
      [200, 'not json'],
      [201, '[]'],
      [400, form],
    ] as const) {
      const verdicts = judgeExchange(token(code, status, body, plain), createFlows());
      expect(failed(verdicts), `${status} ${body}`).toContain('TOK-NO-STORE');
      expect(failed(verdicts), `${status} ${body}`).not.toContain('TOK-ERROR-NO-STORE');
    }
    // A form-encoded refusal, 2xx or not, stays a refusal.
    for (const status of [200, 400]) {
      const refusal = judgeExchange(token(code, status, 'error=invalid_grant', plain), createFlows());
      expect(failed(refusal), `${status}`).toContain('TOK-ERROR-NO-STORE');
      expect(failed(refusal), `${status}`).not.toContain('TOK-NO-STORE');
    }
  });

  it('token_type Bearer breaks the spelling rule, a missing access_token the response rules', () => {
    expect(failed(judgeExchange(token(code, 200, { ...TOKEN, token_type: 'Bearer' }), createFlows()))).toEqual([
      'TOK-TYPE-LOWERCASE-BEARER',
    ]);
    const { access_token: _, ...noAccess } = TOKEN;
    expect(failed(judgeExchange(token(code, 200, noAccess), createFlows()))).toContain('TOK-RESPONSE-JSON');
  });

  it('an error answer must be an OAuth error body in JSON', () => {
    const good = judgeExchange(token(code, 400, { error: 'invalid_grant', error_description: 'no' }), createFlows());
    expect(failed(good)).toEqual([]);
    expect(passed(good)).toContain('ERR-OAUTH-BODY');
    // An HTML page is no JSON: ENC-RESPONSE-JSON's, its members not judged (one cause, one blame);
    // its label warns the should on the exact label beside it, as for any answer with a body.
    const html = judgeExchange(
      token(code, 400, '<html>bad</html>', { 'content-type': 'text/html', 'cache-control': 'no-store' }),
      createFlows(),
    );
    expect(failed(html)).toEqual(['ENC-JSON-CONTENT-TYPE', 'ENC-RESPONSE-JSON']);
    // The same page labelled JSON is no more JSON: the body breaks the sentence, once, not the label.
    const mislabelled = judgeExchange(
      token(code, 400, '<html>bad</html>', { 'content-type': 'application/json', 'cache-control': 'no-store' }),
      createFlows(),
    );
    expect(failed(mislabelled)).toEqual(['ENC-RESPONSE-JSON']);
    const shapeless = judgeExchange(token(code, 400, { message: 'no' }), createFlows());
    expect(failed(shapeless)).toEqual(['ERR-OAUTH-BODY', 'TOK-ERROR-BODY']);
    const odd = judgeExchange(token(code, 400, { error: 'nope', error_description: 'x' }), createFlows());
    expect(failed(odd)).toEqual(['ERR-TOKEN-STANDARD-CODES']);
  });

  it('invalid_client to body credentials may answer 400 (403 breaks ERR-TOKEN-STATUS); to Basic, a 400 or no challenge breaks AUTH-INVALID-CLIENT-BASIC', () => {
    const refusal = { error: 'invalid_client', error_description: 'who?' };
    expect(failed(judgeExchange(token(code, 400, refusal), createFlows()))).toEqual([]);
    expect(failed(judgeExchange(token(code, 403, refusal), createFlows()))).toEqual(['ERR-TOKEN-STATUS']);
    const basic = (headers: Record<string, string>): Observed => ({
      ...token(code, 401, refusal, headers),
      requestHeaders: new Headers({
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('app:wrong').toString('base64')}`,
      }),
    });
    expect(failed(judgeExchange(basic(NO_STORE), createFlows()))).toEqual(['AUTH-INVALID-CLIENT-BASIC']);
    // To HTTP Basic, a 400 without a challenge is one sentence of RFC 6749 §5.2 broken, one rule.
    expect(failed(judgeExchange({ ...basic(NO_STORE), status: 400 }, createFlows()))).toEqual([
      'AUTH-INVALID-CLIENT-BASIC',
    ]);
    const challenged = judgeExchange(basic({ ...NO_STORE, 'www-authenticate': 'Basic realm="x"' }), createFlows());
    expect(failed(challenged)).toEqual([]);
    expect(passed(challenged)).toContain('AUTH-INVALID-CLIENT-BASIC');
  });

  it('a code answered with tokens twice breaks GRANT-CODE-SINGLE-USE; refused the second time, it passes', () => {
    const flows = createFlows();
    judgeExchange(token(code, 200, TOKEN), flows);
    expect(failed(judgeExchange(token(code, 200, TOKEN), flows))).toEqual(['GRANT-CODE-SINGLE-USE']);
    const other = createFlows();
    judgeExchange(token(code, 200, TOKEN), other);
    const refused = judgeExchange(token(code, 400, { error: 'invalid_grant', error_description: 'used' }), other);
    expect(passed(refused)).toContain('GRANT-CODE-SINGLE-USE');
    // Past the code's lifetime the proxy has forgotten it: expiry is another rule's business.
    const late = createFlows();
    judgeExchange(token(code, 200, TOKEN), late);
    expect(failed(judgeExchange(token(code, 200, TOKEN, NO_STORE, 1_000 + 601_000), late))).toEqual([]);
  });

  it('a device code answered with tokens twice breaks DEV-SINGLE-USE', () => {
    const flows = createFlows();
    const poll = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'd1', client_id: 'x' };
    const { refresh_token: _, ...deviceToken } = TOKEN;
    judgeExchange(token(poll, 200, deviceToken), flows);
    // Polled again after that answer (a poll sent while it was under way decides nothing: below).
    expect(failed(judgeExchange(token(poll, 200, deviceToken, NO_STORE, 2_000), flows))).toContain('DEV-SINGLE-USE');
  });

  it('a refresh that does not rotate, or a redeemed refresh token that works again, breaks the refresh rules', () => {
    const refresh = { grant_type: 'refresh_token', refresh_token: 'r'.repeat(64) };
    expect(failed(judgeExchange(token(refresh, 200, TOKEN), createFlows()))).toEqual(['TOK-REFRESH-ROTATION']);
    const flows = createFlows();
    const rotated = judgeExchange(token(refresh, 200, { ...TOKEN, refresh_token: 'n'.repeat(64) }), flows);
    expect(passed(rotated)).toContain('TOK-REFRESH-ROTATION');
    const again = token(refresh, 200, { ...TOKEN, refresh_token: 'm'.repeat(64) }, NO_STORE, 2_000);
    expect(failed(judgeExchange(again, flows))).toEqual(['TOK-REFRESH-OLD-REFUSED']);
  });

  describe('a request in flight while its token died decides nothing; one sent after the answer that ended it is judged (review 30)', () => {
    const user = (access: string, when: Partial<Observed>, target = '/api/v4/user'): Observed => ({
      method: 'GET',
      target,
      requestHeaders: new Headers({ authorization: `Bearer ${access}` }),
      status: 200,
      responseHeaders: new Headers({ 'content-type': 'application/json' }),
      responseBody: Buffer.from('{}'),
      at: 9_000,
      ...when,
    });
    const next = { ...TOKEN, access_token: 'b'.repeat(64), refresh_token: 'n'.repeat(64) };
    /** A code exchange, then a refresh sent at 2 000 (request 2) and answered by 2 100, when request 3 had come in. */
    function refreshed() {
      const flows = createFlows();
      judgeExchange({ ...token({ ...code, client_id: 'app' }, 200, TOKEN), number: 1, arrived: 1 }, flows);
      const form = { grant_type: 'refresh_token', refresh_token: TOKEN.refresh_token, client_id: 'app' };
      const refresh = { ...token(form, 200, next, NO_STORE, 2_100), startedAt: 2_000, number: 2, arrived: 3 };
      judgeExchange(refresh, flows);
      return flows;
    }

    it('rotation, by the clock where the proxy did not number the requests', () => {
      const flows = refreshed();
      // Sent before the refresh was answered, answered 200 after it: the provider may have served it first.
      expect(judgeExchange(user(TOKEN.access_token, { startedAt: 1_900 }), flows)).toEqual([]);
      expect(judgeExchange(user(TOKEN.access_token, { startedAt: 2_050 }), flows)).toEqual([]);
      // Started in the millisecond the refresh answer ended: not known to be after it.
      expect(judgeExchange(user(TOKEN.access_token, { startedAt: 2_100 }), flows)).toEqual([]);
      expect(failed(judgeExchange(user(TOKEN.access_token, { startedAt: 2_101 }), flows))).toEqual([
        'TOK-REFRESH-ROTATION',
      ]);
    });

    it("rotation, by the proxy's numbering where it is known, whatever the clock says", () => {
      const flows = refreshed();
      // Request 3 came in before the refresh answer was whole, even if its clock reading is later.
      expect(judgeExchange(user(TOKEN.access_token, { startedAt: 2_101, number: 3 }), flows)).toEqual([]);
      // Request 4 came in after it, even within the same millisecond.
      const after = user(TOKEN.access_token, { startedAt: 2_100, number: 4 });
      expect(failed(judgeExchange(after, flows))).toEqual(['TOK-REFRESH-ROTATION']);
      expect(passed(judgeExchange({ ...after, status: 401 }, flows))).toContain('TOK-REFRESH-ROTATION');
    });

    it('revocation: the access token on the API, and the refresh token at the token endpoint', () => {
      const flows = refreshed();
      const revoke = (token_: string, n: number) => ({
        ...token({ token: token_, client_id: 'app' }, 200, {}, NO_STORE, 4_100),
        target: '/oauth/revoke',
        startedAt: 4_000,
        number: n,
        arrived: n + 1,
      });
      judgeExchange(revoke(next.access_token, 5), flows);
      const during = { startedAt: 4_050, number: 6 };
      const later = { startedAt: 4_200, number: 7 };
      expect(judgeExchange(user(next.access_token, during), flows)).toEqual([]);
      expect(judgeExchange(user(next.access_token, during, '/api/v4/projects'), flows)).toEqual([]);
      expect(failed(judgeExchange(user(next.access_token, later), flows))).toEqual(['REV-REVOKES-TOKEN']);
      expect(failed(judgeExchange(user(next.access_token, later, '/api/v4/projects'), flows))).toEqual([
        'AUTH-INVALID-TOKEN-401',
      ]);
      judgeExchange(revoke(next.refresh_token, 8), flows);
      const form = { grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: 'app' };
      const issued = { ...TOKEN, access_token: 'c'.repeat(64), refresh_token: 'd'.repeat(64) };
      const refresh = (n: number) => ({ ...token(form, 200, issued, NO_STORE, 5_000), startedAt: 4_050, number: n });
      expect(failed(judgeExchange(refresh(9), flows))).toEqual([]);
      expect(failed(judgeExchange(refresh(10), flows))).toEqual(['REV-REVOKES-TOKEN']);
    });

    it('a refresh token or a device code presented again while its first answer was under way', () => {
      const flows = refreshed();
      const form = { grant_type: 'refresh_token', refresh_token: TOKEN.refresh_token, client_id: 'app' };
      const again = (n: number) => ({ ...token(form, 200, next, NO_STORE, 3_000), startedAt: 2_050, number: n });
      expect(failed(judgeExchange(again(3), flows))).toEqual([]);
      expect(failed(judgeExchange(again(4), flows))).toEqual(['TOK-REFRESH-OLD-REFUSED']);
      const poll = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'd1', client_id: 'x' };
      const { refresh_token: _, ...deviceToken } = TOKEN;
      judgeExchange({ ...token(poll, 200, deviceToken, NO_STORE, 6_100), startedAt: 6_000 }, flows);
      const poll2 = (startedAt: number) => ({ ...token(poll, 200, deviceToken, NO_STORE, 6_200), startedAt });
      expect(failed(judgeExchange(poll2(6_050), flows))).not.toContain('DEV-SINGLE-USE');
      expect(failed(judgeExchange(poll2(6_150), flows))).toContain('DEV-SINGLE-USE');
      // A code is exchanged once, whatever the order: an overlapping second exchange still breaks it.
      const codeFlows = createFlows();
      judgeExchange({ ...token(code, 200, TOKEN, NO_STORE, 1_100), startedAt: 1_000 }, codeFlows);
      const overlapping = { ...token(code, 200, TOKEN, NO_STORE, 1_200), startedAt: 1_050 };
      expect(failed(judgeExchange(overlapping, codeFlows))).toEqual(['GRANT-CODE-SINGLE-USE']);
    });
  });

  it('an access token rotated away or revoked that still works breaks the rotation or revocation rule', () => {
    const flows = createFlows();
    const oracle = (access: string, status: number): Observed => ({
      method: 'GET',
      target: '/api/v4/user',
      requestHeaders: new Headers({ authorization: `Bearer ${access}` }),
      status,
      responseHeaders: new Headers({ 'content-type': 'application/json' }),
      responseBody: Buffer.from('{}'),
      at: 2_000,
    });
    const own = { ...code, client_id: 'app' };
    judgeExchange(token(own, 200, TOKEN), flows);
    // Still alive before the refresh: nothing to judge.
    expect(judgeExchange(oracle(TOKEN.access_token, 200), flows)).toEqual([]);
    const next = { ...TOKEN, access_token: 'b'.repeat(64), refresh_token: 'n'.repeat(64) };
    judgeExchange(
      token({ grant_type: 'refresh_token', refresh_token: TOKEN.refresh_token, client_id: 'app' }, 200, next),
      flows,
    );
    expect(failed(judgeExchange(oracle(TOKEN.access_token, 200), flows))).toEqual(['TOK-REFRESH-ROTATION']);
    expect(passed(judgeExchange(oracle(TOKEN.access_token, 401), flows))).toContain('TOK-REFRESH-ROTATION');
    expect(judgeExchange(oracle(next.access_token, 200), flows)).toEqual([]);
    const revoke = (client: string): Observed => ({
      ...token({ token: next.access_token, client_id: client }, 200, {}),
      target: '/oauth/revoke',
    });
    // Another client's revocation may be answered 200 and leave the token working (REV-CLIENT-BOUND).
    judgeExchange(revoke('other'), flows);
    expect(judgeExchange(oracle(next.access_token, 200), flows)).toEqual([]);
    judgeExchange(revoke('app'), flows);
    expect(failed(judgeExchange(oracle(next.access_token, 200), flows))).toEqual(['REV-REVOKES-TOKEN']);
    // On a public endpoint, taken as no token (200) instead of 401.
    const projects = (status: number): Observed => ({
      ...oracle(next.access_token, status),
      target: '/api/v4/projects',
    });
    expect(failed(judgeExchange(projects(200), flows))).toEqual(['AUTH-INVALID-TOKEN-401']);
    expect(passed(judgeExchange(projects(401), flows))).toContain('AUTH-INVALID-TOKEN-401');
  });

  it('verdict messages never carry the token values', () => {
    const flows = createFlows();
    judgeExchange(token(code, 200, TOKEN), flows);
    const text = JSON.stringify(judgeExchange(token(code, 200, { ...TOKEN, token_type: 'Bearer' }, {}), flows));
    expect(text).not.toContain('a'.repeat(64));
    expect(text).not.toContain('c1');
  });
});

function page(query: string, headers: Record<string, string>, rows: number): Observed {
  return {
    method: 'GET',
    target: `/api/v4/projects${query}`,
    requestHeaders: new Headers(),
    status: 200,
    responseHeaders: new Headers({ 'content-type': 'application/json', ...headers }),
    responseBody: Buffer.from(JSON.stringify(Array.from({ length: rows }, (_, id) => ({ id })))),
    at: 0,
  };
}

const link = (rels: Record<string, number>) =>
  Object.entries(rels)
    .map(([rel, n]) => `<http://127.0.0.1:1/api/v4/projects?page=${n}&per_page=2>; rel="${rel}"`)
    .join(', ');

describe('passive judging of offset pagination', () => {
  const consistent = {
    'x-page': '1',
    'x-per-page': '2',
    'x-next-page': '2',
    'x-prev-page': '',
    'x-total': '3',
    'x-total-pages': '2',
    link: link({ next: 2, first: 1, last: 2 }),
  };

  it('consistent headers pass PAG-OFFSET-HEADERS, PAG-LINK-HEADER, PAG-X-PAGE-STARTS-AT-1', () => {
    const verdicts = judgeExchange(page('?per_page=2', consistent, 2), createFlows());
    expect(failed(verdicts)).toEqual([]);
    for (const rule of ['PAG-OFFSET-HEADERS', 'PAG-LINK-HEADER', 'PAG-X-PAGE-STARTS-AT-1', 'PAG-LINKS-HEADER-REMOVED'])
      expect(passed(verdicts)).toContain(rule);
  });

  it('x-total one too many shows on the last page', () => {
    const last = {
      ...consistent,
      'x-page': '2',
      'x-next-page': '',
      'x-prev-page': '1',
      'x-total': '4',
      link: link({ prev: 1, first: 1, last: 2 }),
    };
    expect(failed(judgeExchange(page('?page=2&per_page=2', last, 1), createFlows()))).toEqual(['PAG-OFFSET-HEADERS']);
  });

  it('a missing Link, a Links header and a zero-based x-page each break their rule', () => {
    const { link: _, ...noLink } = consistent;
    expect(failed(judgeExchange(page('', noLink, 2), createFlows()))).toEqual(['PAG-LINK-HEADER']);
    expect(failed(judgeExchange(page('', { ...consistent, links: consistent.link }, 2), createFlows()))).toEqual([
      'PAG-LINKS-HEADER-REMOVED',
    ]);
    expect(failed(judgeExchange(page('', { ...consistent, 'x-page': '0' }, 2), createFlows()))).toEqual([
      'PAG-X-PAGE-STARTS-AT-1',
    ]);
  });

  it('a page asked without page served as another breaks PAG-PAGE-DEFAULT; a page above the cap PAG-PER-PAGE-MAX', () => {
    expect(passed(judgeExchange(page('?per_page=2', consistent, 2), createFlows()))).toContain('PAG-PAGE-DEFAULT');
    const second = {
      ...consistent,
      'x-page': '2',
      'x-next-page': '',
      'x-prev-page': '1',
      link: link({ prev: 1, first: 1, last: 2 }),
    };
    expect(failed(judgeExchange(page('?per_page=2', second, 1), createFlows()))).toEqual(['PAG-PAGE-DEFAULT']);
    const big = { 'x-page': '1', 'x-per-page': '150', 'x-next-page': '', 'x-prev-page': '', link: link({ first: 1 }) };
    expect(failed(judgeExchange(page('?per_page=150', big, 150), createFlows()))).toEqual([
      'LIM-PER-PAGE',
      'PAG-PER-PAGE-MAX',
    ]);
    const capped = { ...big, 'x-per-page': '100' };
    expect(passed(judgeExchange(page('?per_page=150', capped, 100), createFlows()))).toContain('PAG-PER-PAGE-MAX');
  });

  it('an x-total above the totals limit breaks PAG-TOTALS-OMITTED', () => {
    const above = {
      ...consistent,
      'x-total': '10001',
      'x-total-pages': '5001',
      link: link({ next: 2, first: 1, last: 5001 }),
    };
    expect(failed(judgeExchange(page('?per_page=2', above, 2), createFlows()))).toEqual(['PAG-TOTALS-OMITTED']);
  });

  it("a Link that drops the request's other parameters breaks PAG-LINK-FOLLOW", () => {
    const kept = {
      ...consistent,
      link: '<http://127.0.0.1:1/api/v4/projects?page=2&per_page=2&order_by=id>; rel="next"',
    };
    expect(failed(judgeExchange(page('?per_page=2&order_by=id', consistent, 2), createFlows()))).toEqual([
      'PAG-LINK-FOLLOW',
    ]);
    expect(passed(judgeExchange(page('?per_page=2&order_by=id', kept, 2), createFlows()))).toContain('PAG-LINK-FOLLOW');
  });

  it('a page the client reached by x-next-page is its own request: its Link still keeps the parameters', () => {
    const flows = createFlows();
    const first = {
      ...consistent,
      link: '<http://127.0.0.1:1/api/v4/projects?page=2&per_page=2&order_by=id>; rel="next"',
    };
    judgeExchange(page('?per_page=2&order_by=id', first, 2), flows);
    // Page 2 asked as the client's own request at the page x-next-page named (the URL no Link gave).
    const second = { ...consistent, 'x-page': '2', 'x-next-page': '', 'x-prev-page': '1', link: link({ prev: 1 }) };
    expect(failed(judgeExchange(page('?per_page=2&order_by=id&page=2', second, 1), flows))).toEqual([
      'PAG-LINK-FOLLOW',
    ]);
  });

  it('an answer that is no offset page is not judged', () => {
    expect(judgeExchange(page('', {}, 2), createFlows())).toEqual([]);
  });
});

describe('flow memory', () => {
  it('forgets by lifetime and keeps at most max entries, oldest first', () => {
    const memory = remembered<true>(1_000, 3);
    for (const s of ['a', 'b', 'c', 'd']) memory.set(s, 0, true);
    expect(memory.size).toBe(3);
    expect(memory.get('a', 0)).toBeUndefined();
    expect(memory.get('d', 999)).toBe(true);
    expect(memory.get('d', 1_000)).toBeUndefined();
    expect(memory.size).toBe(0);
  });
});
