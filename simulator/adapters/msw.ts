/**
 * msw adapter: request handlers, so a client's own tests talk to the simulator with no server.
 *   const server = setupServer(...simulatorHandlers(sim, 'http://idp.test'))
 */
import { http, type HttpHandler } from 'msw';
import type { Sim } from '../types.js';

export function simulatorHandlers(sim: Sim, baseUrl: string): HttpHandler[] {
  const base = baseUrl.replace(/(?<!\/)\/+$/, '');
  return [http.all(`${base}/*`, ({ request }) => sim.handle(request))];
}
