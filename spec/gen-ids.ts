/**
 * Writes spec/ids.ts: the rule ids, fault names and operationIds of the YAML as string-literal
 * types, so a mistyped id in code is a compile error instead of a silently ignored string.
 *
 * Run `npm run gen:ids` after editing spec/rules.yaml, spec/faults.yaml or spec/openapi.yaml;
 * test/spec/ids.test.ts fails while the checked-in file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { faults, operations, rules, specDir } from './index.js';

export const GEN_IDS_COMMAND = 'npm run gen:ids';

function list(constName: string, typeName: string, what: string, values: string[]): string {
  const sorted = [...new Set(values)].sort();
  return [
    `/** ${what} */`,
    `export const ${constName} = [`,
    ...sorted.map((v) => `  '${v}',`),
    '] as const;',
    `export type ${typeName} = (typeof ${constName})[number];`,
    '',
  ].join('\n');
}

/** The text spec/ids.ts must hold for the spec as it is now (formatted as Prettier leaves it). */
export function renderIds(): string {
  return [
    `// Generated from spec/rules.yaml, spec/faults.yaml and spec/openapi.yaml by \`${GEN_IDS_COMMAND}\`. Do not edit.`,
    '',
    list(
      'RULE_IDS',
      'RuleId',
      'Every rule id of spec/rules.yaml.',
      rules().map((r) => r.id),
    ),
    list(
      'FAULT_NAMES',
      'FaultName',
      'Every fault of spec/faults.yaml.',
      faults().map((f) => f.name),
    ),
    list(
      'OPERATION_IDS',
      'OperationId',
      'Every operationId of spec/openapi.yaml.',
      operations().map((o) => o.operationId),
    ),
  ].join('\n');
}

/** Where the checked-in file lives (the source folder, also when run from dist/). */
export const idsFile = (): string => join(specDir(), 'ids.ts');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(idsFile(), renderIds());
  console.log(`wrote ${idsFile()}`);
}
