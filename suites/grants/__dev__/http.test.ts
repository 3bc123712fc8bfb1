import { it } from 'vitest';
import { createSimulator } from '../../../simulator/core.js';
import { serve } from '../../../simulator/adapters/node.js';
import { openTarget } from '../../target/index.js';
import { openSession } from '../../runner/session.js';
import { checks as grants } from '../index.js';
import { checks as device } from '../../device/index.js';
import { checks as tokens } from '../../tokens/index.js';
import { checks as oidc } from '../../oidc/index.js';
import { checks as cors } from '../../cors/index.js';
const mine = [...grants, ...device, ...tokens, ...oidc, ...cors];
it('http', async () => {
  const served = await serve(createSimulator(), { port: 0, host: '127.0.0.1' });
  const url = (served as any).url ?? (served as any).baseUrl;
  const target = await openTarget({ url });
  const session = await openSession({ target, seed: 3, numRuns: 5 });
  const out: string[] = [];
  for (const c of mine) {
    const r = await session.runCheck(c);
    if (r.status !== 'passed') out.push(`${c.id} ${r.status}: ${(r.message ?? '').slice(0, 200)}`);
  }
  await session.close();
  await (served as any).close();
  console.log(`HTTP ${url}\n  ${out.join('\n  ')}`);
}, 600_000);
