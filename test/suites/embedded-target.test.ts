/**
 * The embedded target skips Fetch's Request and Response (suites/target/embedded.ts): what it
 * answers must be what sim.handle's Response says, request for request: status, every header
 * (Set-Cookie too), and the body as text, for each kind of body a handler answers (a JSON string,
 * prebuilt bytes, none, a handler's own Response) and each the harness sends (none, a form,
 * JSON, multipart, an oversized declared length).
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { createEmbeddedTarget, EMBEDDED_BASE_URL, toRequest } from '../../suites/target/embedded.js';
import type { RawRequest, TargetResponse } from '../../suites/target/types.js';
import { mint } from '../simulator/api/helpers.js';

const sim = createSimulator();
const target = await createEmbeddedTarget(sim);
const pat = target.config.personalAccessToken!;

function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): RawRequest {
  return {
    method,
    url: EMBEDDED_BASE_URL + path,
    headers: new Headers(headers),
    ...(body === undefined ? {} : { body }),
  };
}

async function seen(r: TargetResponse) {
  const headers = [...r.headers].filter(([name]) => name !== 'date');
  return { status: r.status, headers, setCookie: r.headers.getSetCookie().length, text: await r.text() };
}

const multipart = (fields: Record<string, string>) => {
  const boundary = 'b0undary';
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: `${parts.join('')}--${boundary}--\r\n`,
  };
};

const CASES: Array<[string, RawRequest]> = [
  ['a JSON page', raw('GET', '/api/v4/projects?per_page=3', { authorization: `Bearer ${pat}` })],
  ['the same page by HEAD', raw('HEAD', '/api/v4/projects?per_page=3', { authorization: `Bearer ${pat}` })],
  ['the key set (prebuilt bytes)', raw('GET', '/oauth/discovery/keys')],
  ['discovery', raw('GET', '/.well-known/openid-configuration')],
  ['an unknown path', raw('GET', '/nowhere')],
  ['a method not allowed', raw('DELETE', '/oauth/token')],
  [
    'an OAuth error to a form',
    raw('POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=nope'),
  ],
  ['an OAuth error to JSON', raw('POST', '/oauth/token', { 'content-type': 'application/json' }, '{"grant_type":1}')],
  [
    'an OAuth error to multipart',
    (() => {
      const m = multipart({ grant_type: 'nope' });
      return raw('POST', '/oauth/token', m.headers, m.body);
    })(),
  ],
  ['a declared body over the limit', raw('POST', '/oauth/token', { 'content-length': String(10 * 1024 * 1024) }, 'x')],
  ['a sign-in page (cookies)', raw('GET', '/users/sign_in')],
  [
    'a CORS preflight',
    raw('OPTIONS', '/oauth/token', { origin: 'http://spa.test', 'access-control-request-method': 'POST' }),
  ],
];

describe('the embedded target answers what sim.handle answers', () => {
  it.each(CASES)('%s', async (_name, request) => {
    const light = await seen(await target.send(request));
    const fetched = await seen(await sim.handle(toRequest(request)));
    // The sign-in page carries a fresh CSRF token and session per request: compare its shape.
    const mask = (s: Awaited<ReturnType<typeof seen>>) => ({
      ...s,
      headers: s.headers.map(([n, v]) => [n, n === 'set-cookie' ? v.replace(/=[^;]*/, '=…') : v]),
      text: s.text.replace(/name="authenticity_token" value="[^"]*"/g, 'csrf'),
    });
    expect(mask(light)).toEqual(mask(fetched));
    expect(light.status).toBeGreaterThanOrEqual(200);
  });

  it('passes a handler’s own Response on (Git’s advertisement), body and headers', async () => {
    const basic = Buffer.from(`oauth2:${mint(sim, ['read_repository'])}`).toString('base64');
    const request = raw('GET', '/group/subgroup/project.git/info/refs?service=git-upload-pack', {
      authorization: `Basic ${basic}`,
    });
    const light = await seen(await target.send(request));
    expect(light.status).toBe(200);
    expect(light.text).toMatch(/refs\/heads\/main/);
    expect(light).toEqual(await seen(await sim.handle(toRequest(request))));
  });
});
