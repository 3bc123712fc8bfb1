/**
 * A deviation is blamed on exactly the rule it breaks (issue 21): the simulator behind a loopback
 * proxy that injects, one at a time, deviations seen on real servers. Each declares the rules whose
 * sentence it breaks; the checks it concerns must fail or warn exactly those, no other (the fault
 * matrix's blame audit, for real-world shapes rather than the simulator's own faults).
 */
import { describe, it } from 'vitest';
import { expectBlamed, labelled } from './corpus.js';
import { oauthDeviationsForTests } from './oauth-deviations.js';
import { proxyForTests } from './oauth-proxy.js';

const proxy = proxyForTests();
const DEVIATIONS = oauthDeviationsForTests(proxy);

describe('deviations seen on real servers, injected by a proxy in front of the simulator', () => {
  it.each(labelled(DEVIATIONS))(
    '%s: exactly its rules fail or warn',
    (_label, deviation) => expectBlamed(proxy(), deviation),
    300_000,
  );
});
