/**
 * An allowed variation never changes a must verdict (issue 21): the OAuth and OpenID Connect checks
 * against the simulator behind a loopback proxy that rewrites its answers into a form the source
 * (spec/source-spec.md, line L..) or an RFC allows, one variant at a time. Each variant: no must
 * failure, exit 0, and warnings only on the should rules it breaks on purpose. Each run holds the
 * checks the variant concerns (as the fault matrix runs the checks of a fault's rules).
 */
import { describe, expect, it } from 'vitest';
import { blamed, explain, proxyForTests } from './oauth-proxy.js';
import { VARIANTS } from './oauth-variants.js';

const proxy = proxyForTests();

describe('the OAuth and OpenID Connect checks behind a proxy that rewrites answers into allowed variants', () => {
  it.each(VARIANTS.map((v) => [`${v.name} (${v.cite})`, v] as const))(
    '%s: no must failure, exit 0',
    async (_label, variant) => {
      proxy().use(variant.rewrite);
      const { code, report, stderr } = await proxy().run(variant.name.replace(/\W+/g, '-'), variant.checks);
      const applied = proxy().applied();
      proxy().use(undefined);
      const verdicts = blamed(report);
      const why = explain(report, stderr);
      if (!variant.unseen) expect(applied, `the variant was never applied\n${why}`).toBeGreaterThan(0);
      expect(
        verdicts.filter((v) => v.level === 'must').map((v) => `${v.check} ${v.rule}`),
        why,
      ).toEqual([]);
      // The should rules it breaks on purpose warn (they were judged), no other.
      expect([...new Set(verdicts.map((v) => v.rule))].sort(), why).toEqual([...(variant.warns ?? [])].sort());
      const errored = report.checks.filter((c) => c.status === 'errored').map((c) => `${c.id}: ${c.message}`);
      expect(errored).toEqual([]);
      expect(code, why).toBe(0);
    },
    300_000,
  );
});
