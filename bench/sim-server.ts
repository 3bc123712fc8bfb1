/**
 * The simulator as `simulate` serves it, in its own process for the HTTP bench. Besides serving,
 * it mints refresh tokens (no grant the bench can play unattended returns one), reports its
 * memory after a full collection, and records a CPU profile on request (`npm run bench:profile`).
 */
import { createSimulator } from '../simulator/core.js';
import { serve } from '../simulator/adapters/node.js';
import { seeded } from '../simulator/oauth/accounts.js';
import { mintTokens } from '../simulator/oauth/tokens.js';
import type { SimRequest } from '../simulator/types.js';
import { serveServerAsks } from './ipc.js';

/**
 * The simulator's own cost of one request, in process: µs per `sim.answer` of a light request
 * (no socket, no Fetch objects), over `seconds` of a warm loop. What a bench row's answer costs
 * before any HTTP is spoken (`npm run bench:calibrate`).
 */
async function answerCost(
  ask: { method: string; path: string; headers?: Record<string, string>; body?: string },
  seconds: number,
) {
  const bytes = Buffer.from(ask.body ?? '');
  const request = (): SimRequest => {
    const url = new URL(served.url + ask.path);
    return {
      method: ask.method,
      url: url.href,
      parsedUrl: url,
      headers: new Headers(ask.headers),
      text: async () => bytes.toString(),
      arrayBuffer: async () => new Uint8Array(bytes).buffer,
      formData: () => new Request(url, { method: ask.method, headers: ask.headers, body: bytes }).formData(),
    };
  };
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 100; i++) await sim.answer(request());
    n += 100;
  }
  return { us: ((performance.now() - start) * 1000) / n };
}

const sim = createSimulator();
const served = await serve(sim);

serveServerAsks((ask) => {
  if (ask.type === 'refresh-tokens') {
    const { confidential } = seeded(sim).applications;
    const tokens = Array.from({ length: Number(ask.count) }, () => {
      const { refreshToken } = mintTokens(sim, {
        userId: seeded(sim).admin.id,
        app: confidential,
        scopes: ['api'],
        refresh: true,
      });
      return refreshToken!;
    });
    return { tokens };
  }
  if (ask.type === 'answer-cost')
    return answerCost(ask.request as Parameters<typeof answerCost>[0], Number(ask.seconds ?? 1));
  throw new Error(`unknown ask ${ask.type}`);
});
process.send!({ type: 'ready', url: served.url });
