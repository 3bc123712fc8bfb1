import { it } from 'vitest';
import { openTarget } from '../../target/index.js';
import { openSession } from '../../runner/session.js';
import { checks as grants } from '../index.js';
import { checks as device } from '../../device/index.js';
import { checks as tokens } from '../../tokens/index.js';
import { checks as oidc } from '../../oidc/index.js';
import { checks as cors } from '../../cors/index.js';
const mine = [...grants, ...device, ...tokens, ...oidc, ...cors];
it('releases', async () => {
  for (const [release, offering] of [['15.0', 'self-managed'], ['16.11', 'self-managed'], ['17.0', 'self-managed'], ['17.1', 'hosted'], ['19.0', 'self-managed']] as const) {
    const target = await openTarget({ release, offering });
    const session = await openSession({ target, seed: 3, numRuns: 5 });
    const out: string[] = [];
    let skipped = 0;
    for (const c of mine) {
      const r = await session.runCheck(c);
      if (r.status === 'skipped') skipped++;
      else if (r.status !== 'passed') out.push(`${c.id} ${r.status}: ${(r.message ?? '').slice(0, 200)}`);
    }
    await session.close();
    console.log(`REL ${release} ${offering} skipped=${skipped}\n  ${out.join('\n  ')}`);
  }
}, 600_000);
