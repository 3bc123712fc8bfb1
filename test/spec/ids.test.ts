/** spec/ids.ts is generated from the YAML: it must match it, and the types it exports must bite. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GEN_IDS_COMMAND, idsFile, renderIds } from '../../spec/gen-ids.js';
import { FAULT_NAMES, OPERATION_IDS, RULE_IDS, type FaultName, type OperationId, type RuleId } from '../../spec/ids.js';
import { faults, operations, rule, rules } from '../../spec/index.js';
import type { Check } from '../../suites/types.js';
import type { Sim } from '../../simulator/types.js';

describe('spec/ids.ts', () => {
  it('is what the generator writes for the current YAML', () => {
    const stale = readFileSync(idsFile(), 'utf8') !== renderIds();
    // toBe(false) with a message: a diff of 500 lines would bury the one thing to do.
    expect(stale, `spec/ids.ts is stale: run \`${GEN_IDS_COMMAND}\` and commit spec/ids.ts`).toBe(false);
  });

  it('lists every rule, fault and operation once', () => {
    expect([...RULE_IDS].sort()).toEqual(
      rules()
        .map((r) => r.id)
        .sort(),
    );
    expect([...FAULT_NAMES].sort()).toEqual(
      faults()
        .map((f) => f.name)
        .sort(),
    );
    expect([...OPERATION_IDS].sort()).toEqual([...new Set(operations().map((o) => o.operationId))].sort());
  });

  it('makes a mistyped id a compile error (checked by `tsc --noEmit` in npm test)', () => {
    const good: RuleId = 'DEV-SLOW-DOWN';
    // @ts-expect-error: not a rule of spec/rules.yaml
    const typo: RuleId = 'DEV-SLOW-DOWM';
    // @ts-expect-error: not a fault of spec/faults.yaml
    const fault: FaultName = 'code-reuseable';
    // @ts-expect-error: not an operationId of spec/openapi.yaml
    const op: OperationId = 'getProjectIssues';
    const check: Pick<Check, 'rules'> = {
      // @ts-expect-error: a check's rules are rule ids
      rules: ['GRANT-CODE-SINGLE-USE', 'GRANT-CODE-SINGEL-USE'],
    };
    const faultOn = (sim: Sim) =>
      // @ts-expect-error: the simulator only asks about faults that exist
      sim.fault('revoke-ignore');
    // @ts-expect-error: rule lookups take rule ids
    const lookup = () => rule('NO-SUCH-RULE');
    expect(rule(good).id).toBe(good);
    expect([typo, fault, op, check, faultOn, lookup]).toHaveLength(6);
  });
});
