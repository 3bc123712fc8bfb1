/**
 * An allowed variation of the REST API never changes a must verdict: the REST checks against the
 * simulator behind the loopback proxy of oauth-proxy.ts, rewriting its /api/v4 answers into one
 * variant of rest-variants.ts at a time (the same judgement as oauth-variants.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { expectAllowed, labelled } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';
import { REST_VARIANTS } from './rest-variants.js';

const proxy = proxyForTests();

/** A variant is judged, not stepped around: every check it concerns ran to a verdict. */
const judged = (report: Report) =>
  expect(report.checks.filter((c) => c.status === 'skipped').map((c) => `${c.id}: ${c.message}`)).toEqual([]);

describe('the REST API checks behind a proxy that rewrites answers into allowed variants', () => {
  it.each(labelled(REST_VARIANTS))(
    '%s: no must failure, exit 0',
    (_label, variant) =>
      expectAllowed(proxy(), {
        ...variant,
        after: (report) => {
          judged(report);
          variant.after?.(report);
        },
      }),
    300_000,
  );
});
