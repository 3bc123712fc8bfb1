/**
 * The API checks whose rules no simulator fault breaks can still fail: each is run against the
 * embedded simulator behind a mutant, a wrapper that breaks exactly the behaviour the check is
 * about, and must then fail (or warn, for a `should` rule). Without the mutant it must pass.
 */
import { describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.js';
import { runConformance } from '../../suites/runner/run.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { fetchResponse } from './fakes.js';
import type { RawRequest, Target } from '../../suites/target/types.js';

type Send = (raw: RawRequest) => Promise<Response>;
type Mutant = (raw: RawRequest, send: Send) => Promise<Response>;

const SEED = 20_240_517;
const RUNS = 3;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const pathOf = (raw: RawRequest) => new URL(raw.url).pathname;
const isRest = (raw: RawRequest) => pathOf(raw).startsWith('/api/');
const withUrl = (raw: RawRequest, url: string): RawRequest => ({ ...raw, url });
const withoutHeader = (raw: RawRequest, name: string): RawRequest => {
  const headers = new Headers(raw.headers);
  headers.delete(name);
  return { ...raw, headers };
};
const anonymous = (raw: RawRequest) =>
  !raw.headers.has('authorization') &&
  !raw.headers.has('private-token') &&
  !new URL(raw.url).searchParams.has('access_token');

/** Rewrite the JSON object a matching request answers. */
async function rewriteJson(
  raw: RawRequest,
  send: Send,
  path: RegExp,
  edit: (body: Record<string, unknown>) => unknown,
  method?: string,
): Promise<Response> {
  const res = await send(raw);
  if (!path.test(pathOf(raw)) || (method && raw.method !== method) || res.status >= 300) return res;
  return json(res.status, edit((await res.json()) as Record<string, unknown>));
}

/** check id -> (release, mutant) */
const MUTANTS: Record<string, { release?: string; mutant: Mutant }> = {
  'scopes.presentation-bearer': {
    mutant: (raw, send) => send(isRest(raw) ? withoutHeader(raw, 'authorization') : raw),
  },
  'scopes.presentation-query': {
    mutant: (raw, send) => {
      if (!isRest(raw)) return send(raw);
      const url = new URL(raw.url);
      url.searchParams.delete('access_token');
      return send(withUrl(raw, url.href));
    },
  },
  'scopes.presentation-private-token': { mutant: (raw, send) => send(withoutHeader(raw, 'private-token')) },
  'scopes.missing-token-401': {
    mutant: (raw, send) =>
      pathOf(raw) === '/api/v4/user' && anonymous(raw) ? Promise.resolve(json(200, { id: 1 })) : send(raw),
  },
  'scopes.read-user-reads-current-user': {
    mutant: (raw, send) =>
      pathOf(raw) === '/api/v4/user' && raw.headers.has('authorization')
        ? Promise.resolve(json(403, { error: 'insufficient_scope' }))
        : send(raw),
  },
  'scopes.named-scopes-granted': {
    mutant: async (raw, send) => {
      const res = await send(raw);
      if (pathOf(raw) !== '/oauth/token/info' || res.status !== 200) return res;
      return json(200, { ...((await res.json()) as object), scope: ['api'] });
    },
  },
  'scopes.git-token-as-password': {
    mutant: (raw, send) =>
      pathOf(raw).endsWith('/info/refs') ? Promise.resolve(new Response('denied', { status: 401 })) : send(raw),
  },
  'versioning.api-prefix': { mutant: (raw, send) => send(withUrl(raw, raw.url.replace('/api/v3/', '/api/v4/'))) },
  'versioning.unknown-route-404': {
    mutant: (raw, send) =>
      pathOf(raw).startsWith('/api/v4/conformance-unknown-') ? Promise.resolve(json(200, [])) : send(raw),
  },
  'versioning.rest-errors-json': {
    mutant: async (raw, send) => {
      const res = await send(raw);
      return isRest(raw) && res.status === 404
        ? new Response('<h1>Not Found</h1>', { status: 404, headers: { 'content-type': 'text/html' } })
        : res;
    },
  },
  'versioning.member-roles': {
    mutant: (raw, send) =>
      pathOf(raw) === '/api/v4/member_roles' ? Promise.resolve(json(404, { message: '404 Not Found' })) : send(raw),
  },
  'versioning.tree-missing-path-empty': {
    release: '17.0',
    mutant: (raw, send) =>
      pathOf(raw).endsWith('/repository/tree') && new URL(raw.url).searchParams.has('path')
        ? Promise.resolve(json(404, { message: '404 Tree Not Found' }))
        : send(raw),
  },
  'pagination.keyset-unsupported-endpoint': {
    // keyset served where the table has none: the list with a cursor rel=next and no offset headers
    // (ignoring the parameter and serving offset pages would conform)
    mutant: async (raw, send) => {
      const url = new URL(raw.url);
      if (!url.pathname.endsWith('/issues') || url.searchParams.get('pagination') !== 'keyset') return send(raw);
      url.searchParams.delete('pagination');
      const list = await send(withUrl(raw, url.href));
      const next = new URL(raw.url);
      next.searchParams.set('id_after', '1');
      return new Response(await list.text(), {
        status: 200,
        headers: { 'content-type': 'application/json', link: `<${next.href}>; rel="next"` },
      });
    },
  },
  'encoding.slashed-names-encoded': {
    // a proxy that decodes %2F before routing: raw-slash names then resolve, which the source forbids
    mutant: (raw, send) => {
      const m = /^(.*\/repository\/(?:files|branches|tags)\/)([^?]*)(\?.*)?$/.exec(raw.url);
      return send(m ? withUrl(raw, m[1] + encodeURIComponent(decodeURIComponent(m[2])) + (m[3] ?? '')) : raw);
    },
  },
  'encoding.array-params-query': {
    mutant: (raw, send) => {
      const url = new URL(raw.url);
      if (!url.searchParams.has('labels[]')) return send(raw);
      url.searchParams.delete('labels[]');
      return send(withUrl(raw, url.href));
    },
  },
  'encoding.array-and-hash-params': {
    mutant: (raw, send) => rewriteJson(raw, send, /\/pipeline$/, (body) => ({ ...body, inputs: {} })),
  },
  'encoding.array-params-body': {
    mutant: (raw, send) => rewriteJson(raw, send, /\/issues$/, (body) => ({ ...body, labels: [] }), 'POST'),
  },
  'scopes.api-full-access': {
    mutant: (raw, send) =>
      raw.method === 'POST' && pathOf(raw).endsWith('/issues')
        ? Promise.resolve(json(403, { error: 'insufficient_scope' }))
        : send(raw),
  },
  'versioning.runner-registration-deprecated': {
    mutant: (raw, send) =>
      pathOf(raw) === '/api/v4/runners' ? Promise.resolve(json(404, { message: '404 Not Found' })) : send(raw),
  },
  'pagination.users-offset-limit': {
    mutant: (raw, send) => {
      const url = new URL(raw.url);
      if (url.pathname !== '/api/v4/users' || !url.searchParams.has('page')) return send(raw);
      url.searchParams.set('page', '1');
      return send(withUrl(raw, url.href));
    },
  },
};

async function target(release: string | undefined, mutant?: Mutant): Promise<Target> {
  const inner = await createEmbeddedTarget({ release });
  return mutant ? { ...inner, send: (raw) => mutant(raw, (r) => fetchResponse(inner.send(r))) } : inner;
}

describe('API checks without a simulator fault can fail', () => {
  const checks = allChecks();
  it.each(Object.entries(MUTANTS))(
    '%s fails against its mutant and passes without it',
    async (id, { release, mutant }) => {
      const check = checks.find((c) => c.id === id);
      expect(check, `no check ${id}`).toBeDefined();
      const clean = await runConformance({
        target: await target(release),
        checks: [check!],
        seed: SEED,
        numRuns: RUNS,
      });
      expect(clean.checks[0].status, clean.checks[0].message).toBe('passed');
      const broken = await runConformance({
        target: await target(release, mutant),
        checks: [check!],
        seed: SEED,
        numRuns: RUNS,
      });
      expect(['failed', 'warned'], `${id} did not notice its mutant`).toContain(broken.checks[0].status);
    },
  );
});
