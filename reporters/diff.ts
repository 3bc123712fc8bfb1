/**
 * The console's per-operation table of `idp-conformance diff`: one block per operation, one row per
 * difference, each linked to the rules it breaks, `allowed` (a variation the spec allows), or marked
 * "not covered by any rule". Every cell
 * comes from the target, so every cell passes through terminalSafe.
 */
import { plural } from '../suites/report/words.js';
import type { Difference, DiffSection } from '../suites/report/model.js';
import { terminalSafe } from './console.js';
import { groupBy } from './text.js';

/** "not covered by any rule": the findings `diff` exists for (the spec could grow from them). */
export const NOT_COVERED = 'not covered by any rule';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * How a difference is judged, the same words in every format: its rules, allowed, not judged by
 * the checks run (the selection left out the checks of rules that concern it), or not covered.
 */
export function judgementOf(d: Difference): { kind: 'linked' | 'allowed' | 'unjudged' | 'uncovered'; text: string } {
  if (d.rules.length) return { kind: 'linked', text: d.rules.join(', ') };
  if (d.allowed) return { kind: 'allowed', text: `allowed (${d.allowed})` };
  if (d.unjudged?.length)
    return {
      kind: 'unjudged',
      text: `not judged by the checks run (${d.unjudged.join(', ')}: ${d.unjudged.length === 1 ? 'its' : 'their'} checks were left out)`,
    };
  return { kind: 'uncovered', text: NOT_COVERED };
}

/** ` (answers 200)` where the row holds one status of a difference judged otherwise at another (its own row). */
export const atStatus = (d: Difference) => (d.status === undefined ? '' : ` (answers ${d.status})`);

/** The checks that saw it, and how often when more than once. */
export const seenIn = (d: Difference) => `${d.checks.join(', ')}${d.count > 1 ? ` (${d.count}×)` : ''}`;

/** Checks not compared, a premise missing on one side, in every format (`diffTally` counts them). */
const notComparedCount = (section: DiffSection) =>
  (section.notCompared ?? []).reduce((n, entry) => n + entry.checks.length, 0);

/**
 * `3 differences: 1 linked to a failed rule, 1 allowed, 1 not covered by any rule`, and how many
 * checks were not compared (their premise missing on one side: listed apart, never as differences).
 */
export function diffTally(section: DiffSection): string {
  const { differences } = section;
  const count = (kind: string) => differences.filter((d) => judgementOf(d).kind === kind).length;
  const more = section.omitted ? `, ${section.omitted} more not listed` : '';
  const skipped = notComparedCount(section);
  const uncompared = skipped ? `; ${plural(skipped, 'check')} not compared (above)` : '';
  const unjudged = count('unjudged') ? `, ${count('unjudged')} not judged` : '';
  return (
    `${plural(differences.length, 'difference')}${more}: ` +
    `${count('linked')} linked to a failed rule, ${count('allowed')} allowed, ${count('uncovered')} ${NOT_COVERED}` +
    unjudged +
    uncompared
  );
}

/** One line per reason a set of checks was not compared: the reason, the checks, the operations left out. */
export const notComparedLines = (section: DiffSection): string[] =>
  (section.notCompared ?? []).map(
    (entry) =>
      `not compared: ${entry.checks.join(', ')}: ${entry.reason}` +
      (entry.operations.length ? ` (operations: ${entry.operations.join(', ')})` : ''),
  );

/** `Diff against …: N exchange pairs (…)`, and on a line of its own what was read from the target to configure it. */
export const diffHead = (section: DiffSection): string[] => [
  `Diff against ${section.reference}: ${section.exchanges.paired} exchange pairs ` +
    `(${section.exchanges.target} target, ${section.exchanges.reference} reference)`,
  ...(section.read?.length ? [`Read from the target: ${section.read.join('; ')}`] : []),
];

/** What an empty table says: nothing differs, in what was compared where some checks were not. */
export const noDifference = (section: DiffSection) =>
  section.notCompared?.length ? 'No difference in what was compared.' : 'No difference.';

/** The checks cell of a row, as long as the console shows it. */
export const checksCell = (d: Difference) => clip(seenIn(d), 80);

function row(d: Difference): string[] {
  return [
    `${d.kind} ${clip(d.subject, 48)}${atStatus(d)}`,
    clip(d.target, 64),
    clip(d.reference, 64),
    judgementOf(d).text,
    checksCell(d),
  ].map(terminalSafe);
}

export function formatDiff(section: DiffSection): string {
  const { differences } = section;
  const head = diffHead(section).map(terminalSafe).join('\n');
  const uncompared = notComparedLines(section).map((l) => terminalSafe(l));
  if (!differences.length) return `${[head, noDifference(section), ...uncompared].join('\n')}\n`;
  const header = ['difference', 'target', 'reference', 'rules', 'checks'];
  const rows = new Map(differences.map((d) => [d, row(d)]));
  const widths = header.map((h, i) => Math.max(h.length, ...[...rows.values()].map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `  ${cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()}`;
  const lines = [head, line(header)];
  for (const group of groupBy(differences, (d) => d.operation)) {
    lines.push(terminalSafe(group.area));
    for (const d of group.items) lines.push(line(rows.get(d)!));
  }
  lines.push(...uncompared, terminalSafe(diffTally(section)));
  return `${lines.join('\n')}\n`;
}
