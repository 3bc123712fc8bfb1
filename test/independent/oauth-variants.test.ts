/**
 * An allowed variation never changes a must verdict (issue 21): the OAuth and OpenID Connect checks
 * against the simulator behind a loopback proxy that rewrites its answers into a form the source
 * (spec/source-spec.md, line L..) or an RFC allows, one variant at a time. Each variant: no must
 * failure, exit 0, and warnings only on the should rules it breaks on purpose. Each run holds the
 * checks the variant concerns (as the fault matrix runs the checks of a fault's rules).
 */
import { describe, it } from 'vitest';
import { expectAllowed, labelled } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';
import { VARIANTS } from './oauth-variants.js';

const proxy = proxyForTests();

describe('the OAuth and OpenID Connect checks behind a proxy that rewrites answers into allowed variants', () => {
  it.each(labelled(VARIANTS))(
    '%s: no must failure, exit 0',
    (_label, variant) => expectAllowed(proxy(), variant),
    300_000,
  );
});
