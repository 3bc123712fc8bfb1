/**
 * The console's per-operation table of `idp-conformance diff`: one block per operation, one row per
 * difference, each linked to the rules it breaks, `allowed` (a variation the spec allows), or marked
 * "not covered by any rule". Every cell
 * comes from the target, so every cell passes through terminalSafe.
 */
import type { Difference, DiffSection } from '../suites/report/model.js';
import { terminalSafe } from './console.js';
import { groupBy } from './text.js';

/** "not covered by any rule": the findings `diff` exists for (the spec could grow from them). */
export const NOT_COVERED = 'not covered by any rule';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function row(d: Difference): string[] {
  const seen = `${d.checks.join(', ')}${d.count > 1 ? ` (${d.count}×)` : ''}`;
  return [
    `${d.kind} ${clip(d.subject, 48)}`,
    clip(d.target, 64),
    clip(d.reference, 64),
    d.rules.length ? d.rules.join(', ') : d.allowed ? `allowed (${d.allowed})` : NOT_COVERED,
    clip(seen, 80),
  ].map(terminalSafe);
}

export function formatDiff(section: DiffSection): string {
  const { differences, exchanges } = section;
  const allowed = differences.filter((d) => !d.rules.length && d.allowed).length;
  const uncovered = differences.filter((d) => !d.rules.length && !d.allowed).length;
  const head =
    `Diff against ${terminalSafe(section.reference)}: ${exchanges.paired} exchange pairs ` +
    `(${exchanges.target} target, ${exchanges.reference} reference)`;
  if (!differences.length) return `${head}\nNo difference.\n`;
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
  const more = section.omitted ? `, ${section.omitted} more not listed` : '';
  lines.push(
    `${differences.length} difference${differences.length === 1 ? '' : 's'}${more}: ` +
      `${differences.length - allowed - uncovered} linked to a failed rule, ${allowed} allowed, ${uncovered} ${NOT_COVERED}`,
  );
  return `${lines.join('\n')}\n`;
}
