/**
 * Passive judging of what takes more than one exchange to see, and of the client's own habits:
 * device polls against the interval and expires_in (on the target's clock, moved by the
 * simulator's control API), scopes against what was asked, CORS preflights as the browser sent
 * them, and the client noted (not blamed) for fast polls, ignored slow_down, no PKCE, a reused
 * code and page URLs it built itself.
 */
import { describe, expect, it } from 'vitest';
import { createFlows, judgeExchange, type Observed } from '../../suites/proxy/judge.js';
import type { ClientNote } from '../../suites/proxy/client.js';
import type { Verdict } from '../../suites/proxy/recorder.js';
import { START, pollForm } from './device-start.js';

const JSON_NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

function post(
  target: string,
  form: Record<string, string>,
  status: number,
  body: unknown,
  at: number,
  headers: Record<string, string> = JSON_NO_STORE,
): Observed {
  return {
    method: 'POST',
    target,
    requestHeaders: new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    requestBody: Buffer.from(new URLSearchParams(form).toString()),
    status,
    responseHeaders: new Headers(headers),
    responseBody: Buffer.from(JSON.stringify(body)),
    at,
    startedAt: at,
  };
}

const failed = (verdicts: Verdict[]) => [...new Set(verdicts.filter((v) => !v.ok).map((v) => v.rule))].sort();
const passed = (verdicts: Verdict[]) => new Set(verdicts.filter((v) => v.ok).map((v) => v.rule));

const pending = { error: 'authorization_pending', error_description: 'wait' };
const slowDown = { error: 'slow_down', error_description: 'slower' };
const expired = { error: 'expired_token', error_description: 'gone' };

function deviceFlow(start: object = START) {
  const flows = createFlows();
  const notes: ClientNote[] = [];
  const first = judgeExchange(
    post('/oauth/authorize_device', { client_id: 'app', scope: 'read_user' }, 200, start, 0),
    flows,
    (n) => notes.push(n),
  );
  const poll = (at: number, status: number, body: object) =>
    judgeExchange(post('/oauth/token', pollForm, status, body, at), flows, (n) => notes.push(n));
  return { flows, notes, first, poll };
}

describe('the device flow on the traffic', () => {
  it('holds the device authorization response to its members and timings', () => {
    expect(failed(deviceFlow().first)).toEqual([]);
    expect(passed(deviceFlow().first)).toContain('DEV-POLL-INTERVAL');
    expect(failed(deviceFlow({ ...START, expires_in: 600, interval: 10 }).first)).toEqual([
      'DEV-CODE-LIFETIME',
      'DEV-POLL-INTERVAL',
    ]);
    const bare = { ...START, verification_uri_complete: START.verification_uri };
    expect(failed(deviceFlow(bare).first)).toEqual(['DEV-VERIFICATION-URI-COMPLETE']);
  });

  it('a poll sooner than the interval answered pending breaks DEV-SLOW-DOWN; slow_down passes it', () => {
    const fast = deviceFlow();
    expect(fast.poll(1_000, 400, pending)).not.toContainEqual(expect.objectContaining({ rule: 'DEV-SLOW-DOWN' }));
    expect(failed(fast.poll(1_100, 400, pending))).toEqual(['DEV-SLOW-DOWN']);
    const right = deviceFlow();
    right.poll(1_000, 400, pending);
    expect(passed(right.poll(1_100, 400, slowDown))).toContain('DEV-SLOW-DOWN');
    // After slow_down the interval is 10 s: a poll 7 s later is inside the grown one.
    expect(failed(right.poll(8_100, 400, pending))).toEqual(['DEV-SLOW-DOWN-INTERVAL-GROWS']);
    // A poll after the whole interval, answered pending, is right.
    const paced = deviceFlow();
    paced.poll(1_000, 400, pending);
    expect(failed(paced.poll(6_100, 400, pending))).toEqual([]);
    expect(paced.notes).toEqual([]);
  });

  it('a poll after expires_in answered pending breaks DEV-EXPIRED-TOKEN; expired_token passes it', () => {
    const late = deviceFlow();
    expect(failed(late.poll(302_000, 400, pending))).toEqual(['DEV-EXPIRED-TOKEN']);
    const right = deviceFlow();
    expect(passed(right.poll(302_000, 400, expired))).toContain('DEV-EXPIRED-TOKEN');
  });

  it("follows the target's clock as the simulator's control API moves it", () => {
    const { flows, poll } = deviceFlow();
    poll(1_000, 400, pending);
    judgeExchange(
      {
        ...post('/-/simulator/clock', {}, 200, { now: 1 }, 1_050),
        requestHeaders: new Headers({ 'content-type': 'application/json' }),
        requestBody: Buffer.from(JSON.stringify({ advanceSeconds: 301 })),
      },
      flows,
    );
    // 100 ms later on the proxy's clock, 301 s later on the target's: expired, not fast.
    expect(failed(poll(1_100, 400, pending))).toEqual(['DEV-EXPIRED-TOKEN']);
  });

  it("notes the client's fast polls and ignored slow_down on its side, not as rule failures", () => {
    const { notes, poll } = deviceFlow();
    poll(1_000, 400, pending);
    poll(1_200, 400, slowDown);
    poll(7_000, 400, pending);
    expect(notes.map((n) => n.habit)).toEqual(['polls-too-fast', 'ignores-slow-down']);
    expect(notes[0].where).toBe('POST /oauth/token');
  });
});

describe('scopes against what the client asked for', () => {
  const authorize = (query: string, status: number, location?: string): Observed => ({
    method: 'GET',
    target: `/oauth/authorize?${query}`,
    requestHeaders: new Headers(),
    status,
    responseHeaders: new Headers(location ? { location } : {}),
    at: 0,
  });
  const asked = 'client_id=app&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&response_type=code&state=s1&scope=read_user';
  const consent: Observed = {
    ...post(
      '/oauth/authorize',
      { client_id: 'app', redirect_uri: 'http://127.0.0.1/cb', state: 's1', scope: 'api' },
      302,
      '',
      10,
    ),
    responseHeaders: new Headers({ location: 'http://127.0.0.1/cb?code=c1&state=s1' }),
  };
  const exchange = (scope: string) =>
    post(
      '/oauth/token',
      { grant_type: 'authorization_code', code: 'c1', redirect_uri: 'http://127.0.0.1/cb' },
      200,
      {
        access_token: 'a'.repeat(64),
        token_type: 'bearer',
        expires_in: 7200,
        refresh_token: 'r'.repeat(64),
        scope,
        created_at: 1,
      },
      20,
    );

  it('a token wider than the authorization request breaks SCOPE-GRANTED-SUBSET, in the response and in token info', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    judgeExchange(authorize(`${asked}&code_challenge=x&code_challenge_method=S256`, 200), flows, (n) => notes.push(n));
    judgeExchange(consent, flows);
    expect(failed(judgeExchange(exchange('read_user api'), flows))).toEqual(['SCOPE-GRANTED-SUBSET']);
    const info: Observed = {
      method: 'GET',
      target: '/oauth/token/info',
      requestHeaders: new Headers({ authorization: `Bearer ${'a'.repeat(64)}` }),
      status: 200,
      responseHeaders: new Headers({ 'content-type': 'application/json' }),
      responseBody: Buffer.from(
        JSON.stringify({
          scope: ['read_user', 'api'],
          scopes: ['read_user', 'api'],
          expires_in: 7000,
          expires_in_seconds: 7000,
        }),
      ),
      at: 30,
    };
    expect(failed(judgeExchange(info, flows))).toEqual(['SCOPE-GRANTED-SUBSET']);
    expect(notes).toEqual([]);
  });

  it('the asked scope (or less) passes; no scope asked is not judged; a wider refresh breaks TOK-REFRESH-SCOPE-KEPT', () => {
    const flows = createFlows();
    judgeExchange(authorize(asked, 200), flows);
    judgeExchange(consent, flows);
    expect(passed(judgeExchange(exchange('read_user'), flows))).toContain('SCOPE-GRANTED-SUBSET');
    const refresh = post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'r'.repeat(64) },
      200,
      {
        access_token: 'b'.repeat(64),
        token_type: 'bearer',
        expires_in: 7200,
        refresh_token: 'n'.repeat(64),
        scope: 'read_user api',
        created_at: 1,
      },
      40,
    );
    expect(failed(judgeExchange(refresh, flows))).toEqual(['TOK-REFRESH-SCOPE-KEPT']);
    const unasked = createFlows();
    judgeExchange(authorize(asked.replace('&scope=read_user', ''), 200), unasked);
    judgeExchange(consent, unasked);
    expect(judgeExchange(exchange('api'), unasked).filter((v) => v.rule === 'SCOPE-GRANTED-SUBSET')).toEqual([]);
  });

  it("GitHub's comma-delimited scope breaks TOK-SCOPE-SPACE-DELIMITED alone, its scopes read one by one", () => {
    const flows = createFlows();
    judgeExchange(authorize(asked.replace('scope=read_user', 'scope=read_user+api'), 200), flows);
    judgeExchange(consent, flows);
    expect(failed(judgeExchange(exchange('read_user,api'), flows))).toEqual(['TOK-SCOPE-SPACE-DELIMITED']);
  });

  it('a code redirect without the state sent breaks GRANT-STATE-ECHO; with it, passes', () => {
    const dropped = { ...consent, responseHeaders: new Headers({ location: 'http://127.0.0.1/cb?code=c1' }) };
    expect(failed(judgeExchange(dropped, createFlows()))).toEqual(['GRANT-STATE-ECHO']);
    expect(passed(judgeExchange(consent, createFlows()))).toContain('GRANT-STATE-ECHO');
  });

  it.each(['the Refresh header', 'a meta refresh'])(
    'a code sent back by a 200 page (%s, as the drivers follow it) is judged as a redirect: state and scope',
    (how) => {
      const page = (to: string): Observed => ({
        ...consent,
        status: 200,
        responseHeaders: new Headers({
          'content-type': 'text/html',
          ...(how === 'the Refresh header' ? { refresh: `0; url=${to}` } : {}),
        }),
        responseBody: Buffer.from(
          how === 'a meta refresh'
            ? `<html><head><meta http-equiv="refresh" content="0;url='${to.replace(/&/g, '&amp;')}'"></head></html>`
            : '<p>Redirecting to the application</p>',
        ),
      });
      expect(failed(judgeExchange(page('http://127.0.0.1/cb?code=c1'), createFlows()))).toEqual(['GRANT-STATE-ECHO']);
      const flows = createFlows();
      judgeExchange(authorize(asked, 200), flows);
      expect(passed(judgeExchange(page('http://127.0.0.1/cb?code=c1&state=s1'), flows))).toContain('GRANT-STATE-ECHO');
      expect(failed(judgeExchange(exchange('read_user api'), flows))).toEqual(['SCOPE-GRANTED-SUBSET']);
      // A page refreshing itself (a waiting page) sends the client nowhere: nothing judged.
      expect(judgeExchange(page('/oauth/authorize'), createFlows())).toEqual([]);
    },
  );

  it('notes an authorization request without PKCE and a code sent again on the client side', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    judgeExchange(authorize(asked, 200), flows, (n) => notes.push(n));
    judgeExchange(consent, flows);
    judgeExchange(exchange('read_user'), flows, (n) => notes.push(n));
    judgeExchange(
      post(
        '/oauth/token',
        { grant_type: 'authorization_code', code: 'c1' },
        400,
        { error: 'invalid_grant', error_description: 'used' },
        50,
      ),
      flows,
      (n) => notes.push(n),
    );
    expect(notes.map((n) => n.habit)).toEqual(['no-pkce', 'reuses-code']);
    expect(JSON.stringify(notes)).not.toContain('c1');
  });

  it('notes no-pkce once per authorization: the request asked again after sign-in is the same one', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    const note = (n: ClientNote) => notes.push(n);
    // The first request, sent to sign in; the provider's redirect back asks it again, answered with a code.
    judgeExchange(authorize(asked, 302, 'http://127.0.0.1:1/users/sign_in'), flows, note);
    judgeExchange({ ...authorize(asked, 302, 'http://127.0.0.1/cb?code=c1&state=s1'), at: 5 }, flows, note);
    expect(notes.map((n) => n.habit)).toEqual(['no-pkce']);
    // Once its code was sent back, the same request again is a new authorization.
    judgeExchange({ ...authorize(asked, 200), at: 20 }, flows, note);
    expect(notes.map((n) => n.habit)).toEqual(['no-pkce', 'no-pkce']);
  });
});

describe('CORS preflights the browser sent', () => {
  const preflight = (asked: string, allow: Record<string, string>, status = 204): Observed => ({
    method: 'OPTIONS',
    target: '/oauth/token',
    requestHeaders: new Headers({
      origin: 'https://spa.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': asked,
    }),
    status,
    responseHeaders: new Headers(allow),
    at: 0,
  });
  const served = {
    'access-control-allow-origin': 'https://spa.example',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'Authorization, Content-Type, Accept',
  };

  it('a served preflight passes CORS-PREFLIGHT; one not served breaks it', () => {
    expect(failed(judgeExchange(preflight('content-type', served), createFlows()))).toEqual([]);
    expect(passed(judgeExchange(preflight('content-type', served), createFlows()))).toContain('CORS-PREFLIGHT');
    // Not served, it grants nothing: the headers are not judged besides.
    expect(failed(judgeExchange(preflight('content-type', {}, 404), createFlows()))).toEqual(['CORS-PREFLIGHT']);
    // An endpoint without preflight is not judged on one.
    expect(judgeExchange({ ...preflight('content-type', {}, 404), target: '/api/v4/user' }, createFlows())).toEqual([]);
  });

  // Fetch's CORS-preflight fetch: a CORS-safelisted method (POST) needs no listing, and `*` allows
  // every method to a request without credentials (nginx's and CDNs' common answer).
  it('Allow-Methods `*`, or one not naming the safelisted POST, still serves a POST preflight', () => {
    const star = { ...served, 'access-control-allow-origin': '*', 'access-control-allow-methods': '*' };
    const { 'access-control-allow-methods': _listed, ...unlisted } = served;
    for (const allow of [star, { ...served, 'access-control-allow-methods': 'GET, OPTIONS' }, unlisted]) {
      const verdicts = judgeExchange(preflight('content-type', allow), createFlows());
      expect(failed(verdicts)).toEqual([]);
      expect(passed(verdicts)).toContain('CORS-PREFLIGHT');
    }
  });

  it('X-Requested-With granted breaks CORS-X-REQUESTED-WITH-REFUSED; refused, it passes', () => {
    const granted = { ...served, 'access-control-allow-headers': 'Content-Type, X-Requested-With' };
    expect(failed(judgeExchange(preflight('content-type, x-requested-with', granted), createFlows()))).toEqual([
      'CORS-ALLOWED-HEADERS-LIMITED',
      'CORS-X-REQUESTED-WITH-REFUSED',
    ]);
    expect(passed(judgeExchange(preflight('x-requested-with', served), createFlows()))).toContain(
      'CORS-X-REQUESTED-WITH-REFUSED',
    );
  });
});

describe('pages the client walked', () => {
  const pageOf = (query: string, next?: number): Observed => ({
    method: 'GET',
    target: `/api/v4/projects${query}`,
    requestHeaders: new Headers(),
    status: 200,
    responseHeaders: new Headers({
      'content-type': 'application/json',
      ...(next ? { link: `<http://127.0.0.1:1/api/v4/projects?page=${next}&per_page=2>; rel="next"` } : {}),
    }),
    responseBody: Buffer.from('[]'),
    at: 0,
  });

  it('a page no Link led to is noted as built by the client; one a Link led to is not', () => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    judgeExchange(pageOf('?per_page=2', 2), flows, (n) => notes.push(n));
    judgeExchange(pageOf('?page=2&per_page=2', 3), flows, (n) => notes.push(n));
    expect(notes).toEqual([]);
    judgeExchange(pageOf('?page=5&per_page=2'), flows, (n) => notes.push(n));
    expect(notes).toEqual([{ habit: 'builds-page-urls', where: 'GET /api/v4/projects' }]);
  });

  /** A page answer with only the headers given (a Link, x-page, x-next-page), rows of none. */
  const answered = (query: string, headers: Record<string, string>, path = '/api/v4/projects'): Observed => ({
    ...pageOf(query),
    target: `${path}${query}`,
    responseHeaders: new Headers({ 'content-type': 'application/json', ...headers }),
  });
  const walk = (...exchanges: Observed[]) => {
    const flows = createFlows();
    const notes: ClientNote[] = [];
    for (const ex of exchanges) judgeExchange(ex, flows, (n) => notes.push(n));
    return notes.map((n) => n.habit);
  };
  const link = (rels: Record<string, number>) =>
    Object.entries(rels)
      .map(([rel, page]) => `<http://127.0.0.1:1/api/v4/projects?page=${page}&per_page=2>; rel="${rel}"`)
      .join(', ');

  it('behind a target path prefix, a Link written with it names the page asked with or without it', () => {
    // `proxy --target https://idp.example/gitlab`: the client asks /api/v4/… of the proxy; the
    // provider, mounted at /gitlab, writes its links at its own URL (GitLab's external_url).
    const prefixed = (page: number) => ({
      'x-page': String(page - 1),
      link: `<https://idp.example/gitlab/api/v4/projects?page=${page}&per_page=2>; rel="next"`,
    });
    const behind = (...exchanges: Observed[]) => {
      const flows = createFlows({ basePath: '/gitlab' });
      const notes: ClientNote[] = [];
      for (const ex of exchanges) judgeExchange(ex, flows, (n) => notes.push(n));
      return notes.map((n) => n.habit);
    };
    // Its query taken onto the client's own base URL (gitbeaker), or the link asked as written.
    expect(behind(answered('?per_page=2', prefixed(2)), answered('?page=2&per_page=2', prefixed(3)))).toEqual([]);
    expect(
      behind(
        answered('?per_page=2', prefixed(2)),
        answered('?page=2&per_page=2', prefixed(3), '/gitlab/api/v4/projects'),
      ),
    ).toEqual([]);
    // A page no Link named is still built, behind the prefix as without it.
    expect(behind(answered('?per_page=2', prefixed(2)), answered('?page=3&per_page=2', prefixed(4)))).toEqual([
      'builds-page-urls',
    ]);
  });

  it('a first request straight to page 2, never told of, is built; page 1 asked explicitly is not', () => {
    expect(walk(answered('?page=2&per_page=2', { 'x-page': '2', link: link({ prev: 1, next: 3 }) }))).toEqual([
      'builds-page-urls',
    ]);
    // A cursor of a keyset page no Link named, first thing too.
    expect(walk(answered('?pagination=keyset&per_page=2&id_after=40', { link: link({ next: 3 }) }))).toEqual([
      'builds-page-urls',
    ]);
    expect(walk(answered('?page=1&per_page=2', { 'x-page': '1', link: link({ next: 2 }) }))).toEqual([]);
  });

  it('a page some earlier answer on the path linked to is followed, whichever answer it was', () => {
    expect(
      walk(
        answered('?per_page=2', { 'x-page': '1', link: link({ next: 2, last: 3 }) }),
        // Page 2's own answer links no page 3 (a server may send next alone): page 1's rel=last did.
        answered('?page=2&per_page=2', { 'x-page': '2', link: link({ prev: 1 }) }),
        answered('?page=3&per_page=2', { 'x-page': '3', link: link({ first: 1 }) }),
        answered('?page=1&per_page=2', { 'x-page': '1' }),
      ),
    ).toEqual([]);
    // The page x-next-page named, asked as that request with its page set (no Link at all).
    expect(
      walk(
        answered('?per_page=2', { 'x-page': '1', 'x-next-page': '2' }),
        answered('?per_page=2&page=2', { 'x-page': '2' }),
      ),
    ).toEqual([]);
  });

  it("a page of a path that answers no listing (the provider's web pages) is no built page URL", () => {
    expect(walk(answered('?page=2', { 'content-type': 'text/html' }, '/explore/projects'))).toEqual([]);
  });
});
