/**
 * Known deviations (`run --expect FILE`, schema spec/expect.schema.json): a failure of a listed
 * rule (and, when the entry names checks, of one of those checks) is reported `expected` and does
 * not fail the run; a listed rule that now passes is reported `stale`, so the file shrinks. This
 * lets a pipeline gate on regressions against a provider knowingly off the spec.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createAjv, didYouMean, describeSchemaErrors, type ValidateFunction } from '../../spec/ajv.js';

import { expectSchema } from '../../spec/index.js';
import { ConfigError } from '../errors.js';
import type { CheckResult } from '../report/model.js';

export interface Expectation {
  rule: string;
  checks?: string[];
  reason: string;
}

let validator: ValidateFunction | undefined;

/** Parse and validate an expect file's text; unknown rule or check ids are errors, not silent no-ops. */
export function parseExpectations(
  text: string,
  origin: string,
  known: { rules: Set<string>; checks: Set<string> },
): Expectation[] {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new ConfigError(`${origin}: not valid YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  validator ??= createAjv({ allErrors: true, verbose: true }).compile(expectSchema());
  if (!validator(value))
    throw new ConfigError(
      `${origin}: ${describeSchemaErrors(validator.errors!, 'file')} (see spec/expect.schema.json)`,
    );
  const entries = (value as { expected: Expectation[] }).expected;
  for (const [i, e] of entries.entries()) {
    if (!known.rules.has(e.rule))
      throw new ConfigError(`${origin}: expected.${i}.rule: unknown rule ${e.rule}${didYouMean(e.rule, known.rules)}`);
    const unknown = (e.checks ?? []).filter((c) => !known.checks.has(c));
    if (unknown.length)
      throw new ConfigError(
        `${origin}: expected.${i}.checks: unknown check ${unknown.map((c) => c + didYouMean(c, known.checks)).join(', ')}`,
      );
  }
  return entries;
}

export function loadExpectations(file: string, known: { rules: Set<string>; checks: Set<string> }): Expectation[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseExpectations(text, file, known);
}

/** The entries that excuse a failure of `rule` by `check`. */
function excusing(expect: Expectation[], rule: string, check: string): Expectation[] {
  return expect.filter((e) => e.rule === rule && (!e.checks || e.checks.includes(check)));
}

/**
 * A failed or warned check becomes `expected` when every rule it broke is excused for it; the
 * reasons travel with it. Anything else is left as it is.
 */
export function applyToCheck(check: CheckResult, expect: Expectation[]): CheckResult {
  if (!expect.length || (check.status !== 'failed' && check.status !== 'warned')) return check;
  const broken = check.broken ?? check.rules;
  const reasons = broken.map((id) => excusing(expect, id, check.id));
  if (!broken.length || reasons.some((r) => r.length === 0)) return check;
  const expectedReason = [...new Set(reasons.flat().map((e) => e.reason))].join('; ');
  return { ...check, status: 'expected', expectedReason };
}

/** The reason a rule is listed (for `stale` and `expected` rule rows), if it is. */
export function reasonFor(expect: Expectation[], rule: string): string | undefined {
  const listed = expect.filter((e) => e.rule === rule);
  return listed.length ? [...new Set(listed.map((e) => e.reason))].join('; ') : undefined;
}
