/**
 * The simulator as `simulate` serves it, in its own process for the HTTP bench. Besides serving,
 * it mints refresh tokens (no grant the bench can play unattended returns one), reports its
 * memory after a full collection, and records a CPU profile on request (`npm run bench:profile`).
 */
import { createSimulator } from '../simulator/core.js';
import { serve } from '../simulator/adapters/node.js';
import { seeded } from '../simulator/oauth/accounts.js';
import { mintTokens } from '../simulator/oauth/tokens.js';
import { serveServerAsks } from './ipc.js';

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
  throw new Error(`unknown ask ${ask.type}`);
});
process.send!({ type: 'ready', url: served.url });
