/**
 * Verdict equality: the project's own suites run against the simulator straight and through the
 * proxy give the same per-rule verdicts, for every rule the proxy judges passively; the proxied
 * run itself reads as the straight one (the proxy changes nothing). With faults whose rules the
 * traffic shows, the two still agree, failures included.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { faults as allFaults } from '../../spec/index.js';
import { runOnSimulator, status } from './behind.js';

/** Suites that finish fast and whose traffic the proxy judges (the device flow with moved clocks, CORS). */
const SUITES = 'device,cors,tokens';
const SCENARIO_TIMEOUT_MS = 240_000;
const VERDICTS = ['passed', 'failed', 'warned'];

function agree(straight: Report, proxied: Report, proxy: Report): string[] {
  for (const r of straight.rules) expect(status(proxied, r.id), `proxied run, ${r.id}`).toBe(r.status);
  const compared: string[] = [];
  for (const r of proxy.rules) {
    if (r.status === 'untested' || !VERDICTS.includes(status(straight, r.id) ?? '')) continue;
    expect(r.status, `proxy, ${r.id}`).toBe(status(straight, r.id));
    compared.push(r.id);
  }
  return compared;
}

describe('verdict equality, straight and through the proxy', () => {
  for (const faults of [[], ['no-slow-down', 'device-timings-doubled', 'cors-allows-x-requested-with']])
    it(
      `${faults.length ? `--fault ${faults.join(' ')}` : 'no fault'}: the same verdict on every rule the proxy judged`,
      async () => {
        const name = faults.length ? 'eq-faults' : 'eq-clean';
        const straight = await runOnSimulator(`${name}-straight`, faults, { suite: SUITES }, { straight: true });
        const behind = await runOnSimulator(`${name}-proxied`, faults, { suite: SUITES });
        const compared = agree(straight.run, behind.run, behind.proxy!);
        console.log(`${name}: ${compared.length} rules judged by the proxy and the run alike: ${compared.join(' ')}`);
        expect(compared).toEqual(
          expect.arrayContaining(['DEV-SLOW-DOWN', 'DEV-POLL-INTERVAL', 'CORS-PREFLIGHT', 'REV-REVOKES-TOKEN']),
        );
        if (faults.length)
          for (const rule of ['DEV-SLOW-DOWN', 'DEV-POLL-INTERVAL', 'CORS-X-REQUESTED-WITH-REFUSED'])
            expect(status(behind.proxy!, rule), rule).toBe('failed');
      },
      SCENARIO_TIMEOUT_MS,
    );

  // Keyset walks of several orderings (by name, with ties) and other orderings refused (groups
  // hold orderings the table does not allow: keyset-any-order serves them): the proxy holds each
  // page to the table and to the page before, agrees with the run, and breaks what a fault breaks.
  const KEYSET_RULES = ['PAG-KEYSET-SELECTED-ENDPOINTS', 'PAG-KEYSET-ROWS', 'PAG-KEYSET-NEXT-LINK'];
  const CHECKS = [
    'pagination.keyset-list-users',
    'pagination.keyset-rows-list-users',
    'pagination.keyset-list-registry-repository-tags',
    'pagination.keyset-list-groups',
  ];
  for (const fault of [undefined, 'keyset-any-order', 'keyset-duplicate-row'])
    it(
      `${fault ? `--fault ${fault}` : 'no fault'}, keyset walks: the same verdict on the keyset rules the proxy judged`,
      async () => {
        const faults = fault ? [fault] : [];
        const name = `eq-${fault ?? 'keyset-clean'}`;
        const straight = await runOnSimulator(`${name}-straight`, faults, { checks: CHECKS }, { straight: true });
        const behind = await runOnSimulator(`${name}-proxied`, faults, { checks: CHECKS });
        expect(agree(straight.run, behind.run, behind.proxy!)).toEqual(expect.arrayContaining(KEYSET_RULES));
        const broken = behind.proxy!.rules.filter((r) => r.status === 'failed' || r.status === 'warned');
        const rules = allFaults().find((f) => f.name === fault)?.rules ?? [];
        expect(broken.map((r) => r.id).sort()).toEqual([...rules].sort());
      },
      SCENARIO_TIMEOUT_MS,
    );
});
