import { it } from 'vitest';
import { writeFileSync, readFileSync } from 'node:fs';
import { startOidcProvider } from './oidc-provider-target.js';
import { executeRun } from '../../cli/run.js';
it('probe', async () => {
  const p = await startOidcProvider();
  writeFileSync('/tmp/vc-op.json', JSON.stringify(p.config));
  const err: string[] = [];
  const code = await executeRun(
    { config: '/tmp/vc-op.json', seed: '42', runs: '5', suite: 'grants,device,tokens,oidc,cors', report: 'json=/tmp/vc-op-report.json' },
    { out: () => undefined, err: (t) => void err.push(t) },
    {},
  );
  writeFileSync('/tmp/vc-op-err.txt', err.join(''));
  const r = JSON.parse(readFileSync('/tmp/vc-op-report.json', 'utf8'));
  const lines = r.checks.filter((c: any) => c.status !== 'passed' && c.status !== 'skipped').map((c: any) => `${c.status} ${c.id} [${(c.broken ?? []).join(',')}]: ${c.message}`);
  writeFileSync('/tmp/vc-op-summary.txt', `code ${code}\n` + lines.join('\n'));
  await p.close();
}, 300_000);
