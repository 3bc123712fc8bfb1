/**
 * The run's redactor and HTTP recording at their edges, one input changed at a time: what is
 * learned from a URL, an Authorization header, a JSON body at the size limit; what the recording
 * holds and leaves out. Each case is the one place a single condition of suites/runner/redact.ts or
 * suites/runner/http.ts decides the outcome.
 */
import { describe, expect, it } from 'vitest';
import type { RawRequest } from '../../suites/target/types.js';
import { CheckFailure } from '../../suites/runner/errors.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor, HEADER_VALUE_LIMIT } from '../../suites/runner/redact.js';
import { FAKE_BASE, fakeTarget } from './fakes.js';

const get = (url: string, headers: Record<string, string> = {}) => ({ request: { method: 'GET', url, headers } });
const json = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => ({
  request: { method: 'POST', url: 'http://h/', headers, body },
});
/** Whether the redactor masks `value` standing alone in free text. */
const masks = (r: ReturnType<typeof createRedactor>, value: string) =>
  r.text(`see ${value} here`) !== `see ${value} here`;

describe('the redactor learns from a URL its query and its fragment, never its path', () => {
  it('a fragment without a query (a front-channel answer) is learned', () => {
    const r = createRedactor();
    r.learn(get('http://app/cb#access_token=fragment-only-1&state=plain-state-1'));
    expect(masks(r, 'fragment-only-1')).toBe(true);
    expect(masks(r, 'plain-state-1')).toBe(false);
  });

  it('a relative URL that starts with its query is learned', () => {
    const r = createRedactor();
    r.learn(get('?code=leading-query-1'));
    expect(masks(r, 'leading-query-1')).toBe(true);
  });

  it('a path segment that looks like a pair is not a parameter', () => {
    const r = createRedactor();
    r.learn(get('http://h/reset_password=path-segment-1'));
    expect(masks(r, 'path-segment-1')).toBe(false);
  });

  it('a query name without "=" is no pair: nothing of it is remembered', () => {
    const r = createRedactor();
    r.learn(get('http://h/p?password1&x=1'));
    expect(r.text('password1')).toBe('password1');
  });
});

describe('the redactor learns the credentials of an Authorization header without their scheme', () => {
  it('the credentials after any run of spaces, and after leading spaces', () => {
    const r = createRedactor();
    // Credential-shaped: a word-shaped token is no credential (review 10), config secrets aside.
    r.learn(get('http://h/', { Authorization: 'Bearer  two-spaces-token-7' }));
    r.learn(get('http://h/', { authorization: '  Bearer leading-space-token-7' }));
    expect(r.text('two-spaces-token-7,leading-space-token-7')).toBe('two-…,lead…');
  });

  it('the scheme itself stays readable, and the credentials alone are masked wherever they appear', () => {
    const r = createRedactor();
    r.learn(get('http://h/', { Authorization: 'Basic YXBwOnNlY3JldHZhbHVl' }));
    expect(r.text('x=YXBwOnNlY3JldHZhbHVl; Basic')).toBe('x=YXBw…; Basic');
  });
});

describe('the redactor reads JSON bodies by their keys', () => {
  it('the content type is found whatever the case of its header name', () => {
    const r = createRedactor();
    r.learn(json('{"access_token":"capital-header-1"}', { 'Content-Type': 'application/json' }));
    expect(masks(r, 'capital-header-1')).toBe(true);
  });

  it('only strings under a secret key; every element of an array under one', () => {
    const r = createRedactor();
    r.learn(json('{"token_type":"Bearer","scope":"read_user api","access_token":["array-token-1","array-token-2"]}'));
    expect(r.text('Bearer read_user api array-token-1 array-token-2')).toBe('Bearer read_user api arra… arra…');
  });

  it('a null or a number before the secret does not stop the reading', () => {
    const r = createRedactor();
    r.learn(json('{"error":null,"expires_in":7200,"refresh_token":"after-null-1"}'));
    expect(masks(r, 'after-null-1')).toBe(true);
  });

  it('a body of exactly the limit (16 KiB) is read; one character more is not', () => {
    const body = (secret: string, length: number) => {
      const head = `{"access_token":"${secret}","pad":"`;
      return `${head}${'x'.repeat(length - head.length - 2)}"}`;
    };
    const r = createRedactor();
    const at = body('at-the-limit-1', 16 * 1024);
    const over = body('over-the-limit-1', 16 * 1024 + 1);
    expect([at.length, over.length]).toEqual([16384, 16385]);
    r.learn(json(at));
    r.learn(json(over));
    expect(masks(r, 'at-the-limit-1')).toBe(true);
    expect(masks(r, 'over-the-limit-1')).toBe(false);
  });

  it('a redactor made with no initial secrets masks no ordinary text', () => {
    expect(createRedactor().text('Stryker was here, and so were we')).toBe('Stryker was here, and so were we');
  });

  it('an exchange shown cuts a long response body as it cuts a long request body', () => {
    const shown = createRedactor().exchange({
      request: { method: 'GET', url: 'http://h/', headers: {} },
      response: { status: 200, headers: {}, body: 'r'.repeat(2001) },
    });
    expect(shown.response?.body).toBe(`${'r'.repeat(2000)}… truncated, 2001 bytes`);
  });
});

describe('the HTTP recording holds what was sent and answered, and no more', () => {
  const harness = (answer: (r: RawRequest) => Response) => {
    const recorder = createRecorder(2);
    const http = createHttp(fakeTarget(answer), recorder, createRedactor());
    return { http, recorder };
  };

  it('a request without a body is recorded without a body key, an answer without cookies without set-cookie', async () => {
    const h = harness(() => new Response('ok', { headers: { 'content-type': 'text/plain' } }));
    await h.http.get('/plain');
    expect(h.recorder.exchanges[0]).toStrictEqual({
      request: { method: 'GET', url: `${FAKE_BASE}/plain`, headers: {} },
      response: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' },
    });
  });

  it('the recorder keeps exactly its limit: the oldest goes only when one more comes', async () => {
    const h = harness(() => new Response(''));
    await h.http.get('/1');
    await h.http.get('/2');
    expect(h.recorder.exchanges.map((e) => e.request.url)).toEqual([`${FAKE_BASE}/1`, `${FAKE_BASE}/2`]);
    await h.http.get('/3');
    expect(h.recorder.exchanges.map((e) => e.request.url)).toEqual([`${FAKE_BASE}/2`, `${FAKE_BASE}/3`]);
  });

  it('a body that is not JSON is quoted by its first 200 characters only', async () => {
    const h = harness(() => new Response(`<html>${'p'.repeat(300)}`, { headers: { 'content-type': 'text/html' } }));
    const res = await h.http.get('/html');
    let error: unknown;
    try {
      res.json();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).details).toEqual({ contentType: 'text/html', body: `<html>${'p'.repeat(194)}` });
  });

  it('a compressed body it did not ask for is named as such, not only as "not JSON" (issue 23)', async () => {
    const gz = (await import('node:zlib')).gzipSync('{"a":1}');
    const h = harness(
      () => new Response(gz, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
    );
    const res = await h.http.get('/gz');
    expect(() => res.json()).toThrow(/not JSON \(it is Content-Encoding: gzip, which the harness could not decode\)/);
    const plain = harness(() => new Response('nope', { headers: { 'content-encoding': 'identity' } }));
    await expect(plain.http.get('/p').then((r) => r.json())).rejects.toThrow(/not JSON$/);
  });

  it('follow: a relative reference that carries an absolute URL in its query stays relative', async () => {
    const sent: string[] = [];
    const http = createHttp(
      fakeTarget((r) => {
        sent.push(r.url);
        return new Response('');
      }),
      createRecorder(),
      createRedactor(),
    );
    await http.follow('/next?to=http://elsewhere.test/');
    expect(sent).toEqual([`${FAKE_BASE}/next?to=http://elsewhere.test/`]);
  });
});

describe('review 10: what the harness sends back, secrets echoed escaped, long URLs', () => {
  const SENTENCE = 'Expected status 200; error access_denied; approval';

  it('a value the target chose is learned when sent back only if it looks like a credential (8 characters waived)', () => {
    const r = createRedactor(['config-secret-1']);
    // The target issued word-shaped tokens and a hidden csrf value: the harness sends them back.
    r.learn({
      request: { method: 'POST', url: 'http://h/oauth/token', headers: {}, body: 'code=abcdefgh12345' },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: 'expected', refresh_token: 'Access_Denied', id_token: 'Zq7xW2' }),
      },
    });
    r.learn(get('http://h/api/v4/user', { Authorization: 'Bearer expected' }));
    r.learn(json('{"refresh_token":"Access_Denied","csrf_token":"Approval"}'));
    r.learn({
      request: {
        method: 'POST',
        url: 'http://h/users/sign_in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf_token=Approval&authenticity_token=Zq7xW2',
      },
    });
    // The flows remember the tokens they track the same way.
    for (const value of ['expected', 'Access_Denied', 'Approval', 'Zq7xW2']) r.remember(value);
    expect(r.text(SENTENCE)).toBe(SENTENCE);
    // A short credential the harness sent back is still learned: the 8-character floor is waived.
    expect(masks(r, 'Zq7xW2')).toBe(true);
  });

  it("the config's own secrets are masked whatever their shape", () => {
    const r = createRedactor(['two-spaces-token', 'Expected']);
    expect(r.text('two-spaces-token Expected')).toBe('two-… …');
  });

  it.each([
    ['as PHP json_encode writes it', (s: string) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/')],
    ['JSON quoted again', (s: string) => JSON.stringify(JSON.stringify(s)).slice(1, -1)],
    ['as json_encode writes it, quoted again', (s: string) => JSON.stringify(JSON.stringify(s).replace(/\//g, '\\/'))],
  ])('a configured secret echoed %s is masked', (_, form) => {
    const secret = 'Zq8/kR2+vT9"mW4xLp7=';
    const r = createRedactor([secret]);
    const echoed = form(secret);
    expect(echoed).not.toBe(secret);
    const shown = r.text(`credentials were ${echoed} (trace 42)`);
    expect(shown).not.toContain(echoed);
    expect(shown).not.toContain(echoed.slice(0, 8));
  });

  it('a long request URL is cut for the report as a header value is, masked before the cut', () => {
    const secret = 'url-secret-0123456789';
    const r = createRedactor([secret]);
    const url = `http://h/oauth/authorize?pad=${'a'.repeat(HEADER_VALUE_LIMIT - 40)}${secret}${'b'.repeat(1_000_000)}`;
    const shown = r.exchange({ request: { method: 'GET', url, headers: {} } });
    expect(shown.request.url).toMatch(new RegExp(`… truncated, ${Buffer.byteLength(url)} bytes$`));
    expect(shown.request.url.length).toBeLessThan(HEADER_VALUE_LIMIT + 40);
    expect(shown.request.url).not.toContain(secret.slice(0, 6));
    expect(shown.request.url).toContain('url-…');
    // A short URL is shown whole.
    expect(r.exchange({ request: { method: 'GET', url: 'http://h/x?y=1', headers: {} } }).request.url).toBe(
      'http://h/x?y=1',
    );
  });
});
