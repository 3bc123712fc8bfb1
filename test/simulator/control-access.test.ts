/**
 * Who may use the control API (issue 20, item 1; AUTH-CONTROL-API-LOCAL): JSON bodies only, no
 * browser request from another origin (Origin, Sec-Fetch-Site), GETs too; same-origin clients
 * see no change. The same through real Chromium: test/simulator/cross-site-browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { openapi, operations } from '../../spec/index.js';
import { createAjv } from '../../spec/ajv.js';
import { createSimulator } from '../../simulator/core.js';
import { userByLogin } from '../../simulator/store.js';
import type { SimulatorOptions } from '../../simulator/types.js';

const BASE = 'http://127.0.0.1:3000';
const PASSWORD = 'Pw-Zz9-unguessable';

function control(options: SimulatorOptions = {}) {
  const sim = createSimulator({ clock: { frozen: true }, ...options });
  const send = (path: string, init: RequestInit = {}) => sim.handle(new Request(`${BASE}/-/simulator/${path}`, init));
  const createUser = (username: string, init: RequestInit) =>
    send('users', { method: 'POST', ...init }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      created: userByLogin(sim.store, username) !== undefined,
    }));
  return { sim, send, createUser };
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

function multipart(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

describe('control API bodies are JSON only', () => {
  it.each([
    ['a form body', { body: new URLSearchParams({ username: 'u-form', password: PASSWORD, admin: 'true' }) }],
    ['a text/plain body', { headers: { 'content-type': 'text/plain' }, body: '{"username":"u-form"}' }],
    ['a body without Content-Type', { body: new Blob(['username=u-form&admin=true']) }],
    ['a multipart body', { body: multipart({ username: 'u-form', password: PASSWORD }) }],
  ])('refuses %s with 415 {message} and creates nothing', async (_label, init) => {
    const { createUser } = control();
    const res = await createUser('u-form', init);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ message: expect.stringMatching(/only JSON bodies/) });
    expect(res.created).toBe(false);
  });

  it('refuses a form POST with an empty body too (projects reads its query), and moves no clock', async () => {
    const { sim, send } = control();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const project = await send('projects?path=evil-group/evil', { method: 'POST', headers: form, body: '' });
    expect(project.status).toBe(415);
    const before = sim.clock.nowSeconds();
    const clock = await send('clock', { method: 'POST', headers: form, body: 'advanceSeconds=99999' });
    expect(clock.status).toBe(415);
    expect(sim.clock.nowSeconds()).toBe(before);
  });

  it('refuses an empty POST without Content-Type too (review 20: no Sec-Fetch-* reaches a simulator on a non-loopback name)', async () => {
    const { sim, send } = control();
    const before = sim.clock.nowSeconds();
    expect((await send('clock', { method: 'POST', body: '{"advanceSeconds":60}' })).status).toBe(415);
    const reset = await send('reset', { method: 'POST' });
    expect(reset.status).toBe(415);
    expect(await reset.json()).toEqual({ message: expect.stringMatching(/only JSON bodies/) });
    const empty = await send('reset', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect(sim.clock.nowSeconds()).toBe(before);
  });

  it('a JSON body (also with a charset) and an empty POST with a JSON Content-Type work as before', async () => {
    const { send, createUser } = control();
    const res = await createUser('u-json', json({ username: 'u-json', password: PASSWORD }));
    expect(res.status).toBe(201);
    expect(res.created).toBe(true);
    const charset = await createUser(
      'u-charset',
      json({ username: 'u-charset', password: PASSWORD }, { 'content-type': 'application/json; charset=utf-8' }),
    );
    expect(charset.status).toBe(201);
    expect((await send('reset', { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });
});

describe('control API refuses browser requests from another origin', () => {
  it.each([
    ['another origin', { origin: 'http://127.0.0.2:3000' }],
    ['another port', { origin: 'http://127.0.0.1:3001' }],
    ['another scheme', { origin: 'https://127.0.0.1:3000' }],
    ['an opaque origin', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    // Speculation rules of any site: Chromium sends their prefetch and prerender as `none`, as if typed.
    ['a prefetch (Sec-Purpose)', { 'sec-fetch-site': 'none', 'sec-purpose': 'prefetch' }],
    ['a prerender (Sec-Purpose)', { 'sec-fetch-site': 'none', 'sec-purpose': 'prefetch;prerender' }],
    ['a prefetch (Purpose, as older Chromium sends it)', { purpose: 'prefetch' }],
    ['a prefetch of its own page', { 'sec-fetch-site': 'same-origin', 'sec-purpose': 'prefetch', origin: BASE }],
  ])('%s: 403 on GET config and on a JSON POST, no state change', async (_label, headers) => {
    const { send, createUser } = control();
    const config = await send('config', { headers });
    expect(config.status).toBe(403);
    const body = await config.text();
    expect(JSON.parse(body)).toEqual({ message: expect.stringMatching(/^the control API refuses [^\n]+$/) });
    expect(body).not.toMatch(/gloas-|clientSecret|password/);
    const created = await createUser('u-cross', json({ username: 'u-cross', password: PASSWORD }, headers));
    expect(created.status).toBe(403);
    expect(created.created).toBe(false);
  });

  it.each([
    ['its own Origin', { origin: BASE }],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: BASE }],
    ['Sec-Fetch-Site: none (typed in the address bar)', { 'sec-fetch-site': 'none' }],
  ])('%s: answered as before', async (_label, headers) => {
    const { send, createUser } = control();
    expect((await send('config', { headers })).status).toBe(200);
    expect((await createUser('u-same', json({ username: 'u-same', password: PASSWORD }, headers))).status).toBe(201);
  });

  // Review 25's minor item: it holds every secret, so no cache (a browser's, a shared one) keeps it.
  it('GET config is never stored: Cache-Control: no-store', async () => {
    const { send } = control();
    const config = await send('config', {});
    expect(config.status).toBe(200);
    expect(config.headers.get('cache-control')).toBe('no-store');
  });

  it('behind a trusted TLS proxy the https origin is ours; a fixed --issuer origin is ours too', async () => {
    const proxied = control({ trustProxy: true });
    const headers = { origin: 'https://127.0.0.1:3000', 'x-forwarded-proto': 'https' };
    expect((await proxied.send('config', { headers })).status).toBe(200);
    const fixed = control({ issuer: 'https://idp.test/' });
    expect((await fixed.send('config', { headers: { origin: 'https://idp.test' } })).status).toBe(200);
    expect((await fixed.send('config', { headers: { origin: 'https://evil.test' } })).status).toBe(403);
  });
});

describe('every control refusal is declared in spec/openapi.yaml, with its body schema', () => {
  const ajv = createAjv({ strict: false });
  ajv.addSchema({ $id: 'openapi', components: openapi().components }, 'openapi');
  /** The declared answer of `status`, its $ref followed; fails when the operation does not declare it. */
  const declared = (operationId: string, status: number, body: unknown) => {
    const op = operations().find((o) => o.operationId === operationId)!;
    const entry = op.raw.responses?.[String(status)] as { $ref?: string } | undefined;
    expect(entry, `${operationId} declares no ${status}`).toBeDefined();
    const ref = entry!.$ref!.replace('#/components/responses/', '');
    const schema = `openapi#/components/responses/${ref}/content/application~1json/schema`;
    const validate = ajv.getSchema(schema)!;
    expect(validate(body), `${operationId} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };
  const control = operations().filter((o) => o.tags.includes('simulator'));

  it.each(control.map((o) => [o.operationId, o.method, o.path] as const))(
    '%s: 403 (Host, Origin, Sec-Fetch-Site) and, with a body, 415',
    async (operationId, method, path) => {
      const sim = createSimulator({ clock: { frozen: true }, controlHosts: ['127.0.0.1:3000'] });
      const send = (init: RequestInit, base = BASE) =>
        sim.handle(new Request(base + path, { method: method.toUpperCase(), ...init }));
      for (const refused of [
        await send({}, 'http://rebound.test:3000'),
        await send({ headers: { origin: 'http://127.0.0.2:3000' } }),
        await send({ headers: { 'sec-fetch-site': 'cross-site' } }),
      ]) {
        expect(refused.status).toBe(403);
        declared(operationId, 403, await refused.json());
      }
      if (method === 'get') return;
      const form = await send({ headers: { 'content-type': 'text/plain' }, body: '{}' });
      expect(form.status).toBe(415);
      declared(operationId, 415, await form.json());
    },
  );
});
