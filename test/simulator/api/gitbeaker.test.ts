/**
 * A GitLab API client no one here wrote (@gitbeaker/rest) iterates a collection of more than
 * 1,000 users through the simulator's Link headers over real HTTP, in offset and keyset modes.
 */
import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../../simulator/adapters/node.js';
import { createSimulator } from '../../../simulator/core.js';
import { seededPat } from './helpers.js';

describe('@gitbeaker/rest over real HTTP', () => {
  const sim = createSimulator();
  let served: Served;
  let api: InstanceType<typeof Gitlab>;
  let expected: number;

  beforeAll(async () => {
    served = await serve(sim, { port: 0 });
    api = new Gitlab({ host: served.url, token: seededPat(sim) });
    const head = await fetch(`${served.url}/api/v4/users?per_page=1`);
    expected = Number(head.headers.get('x-total'));
  });
  afterAll(() => served.close());

  it('offset mode: every user exactly once', async () => {
    const users = await api.Users.all({ perPage: 100 });
    const ids = users.map((u) => u.id);
    expect(ids.length).toBeGreaterThanOrEqual(1000);
    expect(ids.length).toBe(expected);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keyset mode: every user exactly once, in order', async () => {
    const users = await api.Users.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 100 } as never);
    const ids = (users as { id: number }[]).map((u) => u.id);
    expect(ids.length).toBe(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});
