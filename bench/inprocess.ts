/**
 * In-process throughput: requests per second through `sim.handle` (Fetch Request in, Response
 * out, no sockets) and through the msw handlers (global fetch intercepted by msw's node
 * interceptor), 50 requests in flight, for a REST page and the key set. argv[2]: seconds per case.
 */
import { setupServer } from 'msw/node';
import { createSimulator } from '../simulator/core.js';
import { simulatorHandlers } from '../simulator/adapters/msw.js';
import { targetConfig } from '../simulator/control/config.js';

const SECONDS = Number(process.argv[2] ?? 2);
const IN_FLIGHT = 50;
const BASE = 'http://idp.test';

async function rate(send: () => Promise<Response>): Promise<number> {
  const first = await send();
  if (first.status !== 200) throw new Error(`in-process request answered ${first.status}`);
  await first.arrayBuffer();
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      await (await send()).arrayBuffer();
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return done / ((performance.now() - start) / 1000);
}

const sim = createSimulator();
const pat = targetConfig(sim, BASE).personalAccessToken!;
const cases = {
  projects: { path: '/api/v4/projects?per_page=20', headers: { authorization: `Bearer ${pat}` } },
  keys: { path: '/oauth/discovery/keys', headers: {} },
};
const results: Record<string, number> = {};
for (const [name, c] of Object.entries(cases)) {
  results[`handle ${name}`] = await rate(() => sim.handle(new Request(BASE + c.path, { headers: c.headers })));
}
const server = setupServer(...simulatorHandlers(sim, BASE));
server.listen({ onUnhandledRequest: 'error' });
for (const [name, c] of Object.entries(cases)) {
  results[`msw ${name}`] = await rate(() => fetch(BASE + c.path, { headers: c.headers }));
}
server.close();
process.stdout.write(`${JSON.stringify(results)}\n`);
