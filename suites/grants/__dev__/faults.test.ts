// Temporary dev harness (delete before hand-off): which of the OAuth checks each fault trips.
import { it } from 'vitest';
import { faults } from '../../../spec/index.js';
import { openTarget } from '../../target/index.js';
import { openSession } from '../../runner/session.js';
import { checks as grants } from '../index.js';
import { checks as device } from '../../device/index.js';
import { checks as tokens } from '../../tokens/index.js';
import { checks as oidc } from '../../oidc/index.js';
import { checks as cors } from '../../cors/index.js';

const mine = [...grants, ...device, ...tokens, ...oidc, ...cors];
const only = process.env.FAULTS?.split(',');

it('faults', async () => {
  const lines: string[] = [];
  for (const fault of faults()) {
    if (only ? !only.includes(fault.name) : fault.side !== 'oauth') continue;
    const target = await openTarget({ faults: [fault.name] });
    const session = await openSession({ target, seed: Number(process.env.SEED ?? 42), numRuns: 15 });
    const failed: string[] = [];
    let caught = false;
    for (const check of mine) {
      const r = await session.runCheck(check);
      if (r.status === 'failed' || r.status === 'warned') {
        failed.push(`${check.id}(${r.status})`);
        if (check.rules.some((x) => fault.rules.includes(x))) caught = true;
      }
    }
    await session.close();
    lines.push(`${caught ? 'CAUGHT' : 'MISSED'} ${fault.name} [${fault.rules.join(',')}]: ${failed.join(' ')}`);
  }
  console.log(lines.join('\n'));
}, 600_000);
