/**
 * An allowed variation of the REST API never changes a must verdict: the REST checks against the
 * simulator behind the loopback proxy of oauth-proxy.ts, rewriting its /api/v4 answers into one
 * variant of rest-variants.ts at a time (the same judgement as oauth-variants.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { expectAllowed, labelled, type Variant } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';
import { REST_VARIANTS } from './rest-variants.js';

const proxy = proxyForTests();

/** A variant is judged, not stepped around: every check it concerns ran to a verdict, but those it leaves untested on purpose. */
function judged(report: Report, variant: Variant): void {
  const skipped = report.checks.filter((c) => c.status === 'skipped');
  expect(skipped.map((c) => c.id).sort()).toEqual(Object.keys(variant.skips ?? {}).sort());
  for (const c of skipped) expect(c.message, c.id).toMatch(variant.skips![c.id]);
}

describe('the REST API checks behind a proxy that rewrites answers into allowed variants', () => {
  it.each(labelled(REST_VARIANTS))(
    '%s: no must failure, exit 0',
    (_label, variant) =>
      expectAllowed(proxy(), {
        ...variant,
        after: (report) => {
          judged(report, variant);
          variant.after?.(report);
        },
      }),
    300_000,
  );
});
