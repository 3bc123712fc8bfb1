/**
 * Review 20, item 1: the control API moves the clock only within what a Date represents. Before,
 * `{"advanceSeconds":1e308}` answered `{"now":null}`, the offset became Infinity, every throttle
 * window counted as passed and each rendered date threw (GET /api/v4/users answered 500).
 */
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { createSimulator } from '../../simulator/core.js';
import { MAX_ADVANCE_SECONDS } from '../../simulator/clock.js';
import type { SimulatorOptions } from '../../simulator/types.js';

const BASE = 'http://127.0.0.1:3000';

function simulator(options: SimulatorOptions = {}) {
  const sim = createSimulator({ clock: { frozen: true }, ...options });
  const send = (path: string, init: RequestInit = {}) => sim.handle(new Request(`${BASE}${path}`, init));
  const advance = (advanceSeconds: unknown) =>
    send('/-/simulator/clock', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"advanceSeconds":${String(advanceSeconds)}}`,
    });
  return { sim, send, advance };
}

describe('POST /-/simulator/clock is bounded', () => {
  it.each([
    ['1e308', /at most 1000000000 per request/],
    [String(MAX_ADVANCE_SECONDS + 1), /at most 1000000000 per request/],
    ['-1', /non-negative/],
  ])('refuses %s with 400 {message} and leaves the clock where it was', async (seconds, message) => {
    const { sim, advance } = simulator();
    const before = sim.clock.now();
    const res = await advance(seconds);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: expect.stringMatching(message) });
    expect(sim.clock.now()).toBe(before);
  });

  it('refuses a move that would take the clock past the latest Date, one allowed step at a time', async () => {
    // A day of seconds short of Date's last millisecond (8.64e15): one step of 1e9 s would pass it.
    const { sim, advance } = simulator({ clock: { frozen: true, start: 8.64e15 - 86_400_000 } });
    expect((await advance(86_399)).status).toBe(200);
    const res = await advance(MAX_ADVANCE_SECONDS);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: expect.stringMatching(/past the latest date/) });
    expect(Number.isFinite(new Date(sim.clock.now()).getTime())).toBe(true);
  });

  it('after a refused move, the password throttle still locks and /api/v4/users still answers', async () => {
    const { send, advance } = simulator();
    expect((await advance('1e308')).status).toBe(400);
    const config = (await (await send('/-/simulator/config')).json()) as {
      user: { username: string; password: string };
      personalAccessToken: string;
    };
    const grant = (password: string) =>
      send('/oauth/token', {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', username: config.user.username, password }),
      });
    for (let i = 0; i < limits().authFailuresMax; i++) expect((await grant(`wrong-${i}`)).status).toBe(400);
    const locked = await grant(config.user.password);
    expect(locked.status).toBe(400);
    expect(await locked.json()).toMatchObject({ error_description: expect.stringMatching(/Too many failed attempts/) });
    const users = await send('/api/v4/users', { headers: { 'private-token': config.personalAccessToken } });
    expect(users.status).toBe(200);
  });
});
