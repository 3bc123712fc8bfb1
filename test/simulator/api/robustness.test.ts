import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import { mint } from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 4242);

describe('bad input never causes a 5xx', () => {
  const sim = createSimulator();
  const token = mint(sim, ['api']);
  const paths = [
    '/api/v4/users',
    '/api/v4/projects',
    '/api/v4/groups',
    '/api/v4/audit_events',
    '/api/v4/projects/1/issues',
    '/api/v4/projects/1/jobs',
    '/api/v4/projects/1/repository/tree',
    '/api/v4/projects/1/registry/repositories/11/tags',
    '/api/v4/projects/group%2Fold-name/issues',
  ];
  const names = [
    'page',
    'per_page',
    'pagination',
    'order_by',
    'sort',
    'cursor',
    'id_after',
    'id_before',
    'page_token',
    'created_after',
    'search',
    'path',
    'recursive',
    'labels[]',
    'a[0][b]',
    'archived',
    'ref',
  ];
  const values = fc.oneof(
    fc.string(),
    fc.constantFrom('keyset', 'offset', 'id', 'name', 'asc', 'desc', '0', '-1', '1e9', '%', '%2F', '+', 'true'),
  );

  it('random query parameters on every list: 2xx, 3xx or a 4xx with a JSON message', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.array(fc.tuple(fc.constantFrom(...names), values), { maxLength: 6 }),
        fc.boolean(),
        async (path, pairs, authed) => {
          const query = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
          const response = await sim.handle(
            new Request(`http://127.0.0.1${path}?${query}`, {
              headers: authed ? { authorization: `Bearer ${token}` } : {},
            }),
          );
          expect(response.status, `${path}?${query}`).toBeLessThan(500);
          if (response.status >= 400) expect(Object.keys(await response.json()).length).toBeGreaterThan(0);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('random bodies on the write endpoints: never a 5xx', async () => {
    const bodies = fc.oneof(
      fc.json().map((text) => ({ type: 'application/json', text })),
      fc.string().map((text) => ({ type: 'application/json', text })),
      fc
        .array(
          fc.tuple(
            fc.constantFrom(
              'title',
              'labels[]',
              'labels',
              'variables[0][key]',
              'variables[][value]',
              'inputs[x]',
              'ref',
              'confidential',
              'variables',
            ),
            fc.string(),
          ),
          { maxLength: 6 },
        )
        .map((pairs) => ({
          type: 'application/x-www-form-urlencoded',
          text: new URLSearchParams(pairs).toString(),
        })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/v4/projects/1/issues', '/api/v4/projects/1/pipeline', '/-/simulator/projects'),
        bodies,
        async (path, body) => {
          const response = await sim.handle(
            new Request(`http://127.0.0.1${path}`, {
              method: 'POST',
              body: body.text,
              headers: { authorization: `Bearer ${token}`, 'content-type': body.type },
            }),
          );
          expect(response.status, `${path} ${body.text}`).toBeLessThan(500);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});
