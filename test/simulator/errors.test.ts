/**
 * The simulator's one error model: each family of thrown answer renders its own body shape, and
 * core.ts answers it (through the middlewares) instead of a 500.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { ApiError, ApiRedirect, ControlError, HttpError } from '../../simulator/errors.js';
import { InvalidClient, InvalidGrant } from '../../simulator/oauth/errors.js';

const sim = createSimulator({ clock: { frozen: true } });

async function answer(error: HttpError, on = sim) {
  const reply = error.toResponse(on);
  const text = typeof reply.body === 'string' ? reply.body : '';
  return { status: reply.status, headers: reply.headers, body: text ? JSON.parse(text) : null };
}

describe('HttpError families', () => {
  it('REST: {message} by default, a richer body when given, headers kept', async () => {
    expect(await answer(new ApiError(404, '404 Project Not Found'))).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    const scoped = await answer(
      new ApiError(403, 'x', { 'www-authenticate': 'Bearer' }, { error: 'insufficient_scope' }),
    );
    expect(scoped.body).toEqual({ error: 'insufficient_scope' });
    expect(scoped.headers.get('www-authenticate')).toBe('Bearer');
    expect(scoped.headers.get('content-type')).toBe('application/json');
  });

  it('a moved project is a redirect with no body', async () => {
    const moved = await answer(new ApiRedirect('http://127.0.0.1/api/v4/projects/new', 301));
    expect(moved).toMatchObject({ status: 301, body: null });
    expect(moved.headers.get('location')).toBe('http://127.0.0.1/api/v4/projects/new');
  });

  it('control: {message}, 400 unless said', async () => {
    expect(await answer(new ControlError('scopes is required'))).toMatchObject({
      status: 400,
      body: { message: 'scopes is required' },
    });
    expect((await answer(new ControlError('no user x', 404))).status).toBe(404);
  });

  it('OAuth: {error, error_description}, never cached; invalid_client challenges Basic unless a fault drops it', async () => {
    const grant = await answer(InvalidGrant('The authorization code is invalid'));
    expect(grant).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'The authorization code is invalid' },
    });
    expect(grant.headers.get('cache-control')).toBe('no-store');
    const client = await answer(InvalidClient('unknown client'));
    expect(client.status).toBe(401);
    expect(client.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth", error="invalid_client"/);
    const faulty = await answer(
      InvalidClient('unknown client'),
      createSimulator({ faults: ['invalid-client-no-challenge'] }),
    );
    expect(faulty.status).toBe(400);
    expect(faulty.headers.get('www-authenticate')).toBeNull();
  });
});

describe('core.ts answers thrown errors', () => {
  it('a lookup miss thrown deep in a REST handler is a 404 {message}', async () => {
    const response = await sim.handle(new Request('http://127.0.0.1/api/v4/projects/999999999'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: '404 Project Not Found' });
  });

  it('an unreadable control body is a 400 {message}, even on reset', async () => {
    const response = await sim.handle(
      new Request('http://127.0.0.1/-/simulator/reset', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'body is not valid JSON' });
  });
});
