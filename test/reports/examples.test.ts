/**
 * The CI examples in examples/ (shown in the README) parse as YAML, use the platform's own way to
 * split work, and every idp-conformance command they run exists with the flags it passes, and
 * those flags hold values the command accepts.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseRunFlags, registerRun } from '../../cli/run.js';
import { registerReport } from '../../cli/report.js';
import { parseReportSpecs } from '../../reporters/index.js';

const file = (name: string) => new URL(`../../examples/${name}`, import.meta.url);
const text = (name: string) => readFileSync(file(name), 'utf8');

/** The shell's view of a line: variables of one shard filled in, quotes removed, split on blanks. */
function argv(line: string): string[] {
  const filled = line
    .replace(/\$\{\{\s*matrix\.shard\s*\}\}|\$CI_NODE_INDEX/g, '2')
    .replace(/\$\{\{\s*strategy\.job-total\s*\}\}|\$CI_NODE_TOTAL/g, '3');
  return (filled.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((word) => word.replace(/^["']|["']$/g, ''));
}

/** Every `npx idp-conformance …` line of a parsed workflow, wherever it sits. */
function commands(node: unknown): string[][] {
  if (typeof node === 'string')
    return node
      .split('\n')
      .filter((line) => /\bidp-conformance\b/.test(line) && /^\s*npx /.test(line))
      .map((line) => argv(line.trim()).slice(2));
  if (Array.isArray(node)) return node.flatMap(commands);
  if (node && typeof node === 'object') return Object.values(node).flatMap(commands);
  return [];
}

function program(): Command {
  const p = new Command('idp-conformance');
  registerRun(p);
  registerReport(p);
  return p;
}

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Finds the (sub)command and checks each flag against its options and each value against its parser. */
function checkCommand(args: string[]): string {
  let cmd = program();
  let rest = args;
  while (rest.length && !rest[0].startsWith('-')) {
    const sub = cmd.commands.find((c) => c.name() === rest[0]);
    if (!sub) break;
    cmd = sub;
    rest = rest.slice(1);
  }
  const name = [...(cmd.parent?.parent ? [cmd.parent.name()] : []), cmd.name()].join(' ');
  expect(cmd.commands, `unknown command in ${args.join(' ')}`).toHaveLength(0);
  const known = new Map(cmd.options.map((o) => [o.long!, o]));
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < rest.length; i++) {
    if (!rest[i].startsWith('--')) continue;
    const option = known.get(rest[i]);
    expect(option, `${name} has no option ${rest[i]}`).toBeDefined();
    flags[camel(rest[i])] = option!.required ? rest[++i] : true;
  }
  if (name === 'run') parseRunFlags(flags, {});
  if (flags.report) parseReportSpecs(String(flags.report));
  return name;
}

describe.each(['gitlab-ci.yml', 'github-actions.yml'])('examples/%s', (name) => {
  const doc = parse(text(name)) as Record<string, unknown>;
  const cmds = commands(doc);

  it('runs a sharded run and a merge, with commands and flags the CLI has', () => {
    const names = cmds.map(checkCommand);
    expect(names).toContain('run');
    expect(names).toContain('report merge');
    const shardRun = cmds.find((c) => c[0] === 'run' && c.includes('--shard'))!;
    expect(shardRun[shardRun.indexOf('--shard') + 1]).toBe('2/3');
  });

  it('publishes JUnit to the test report and the HTML report as an artifact', () => {
    expect(text(name)).toMatch(/junit-rules=reports\/junit-rules\.xml/);
    expect(text(name)).toMatch(/html=reports\/report\.html/);
  });

  it('is shown in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`examples/${name}`);
  });
});

describe('the platforms split the work their own way', () => {
  it('GitLab: parallel N with CI_NODE_INDEX/CI_NODE_TOTAL, JUnit under artifacts:reports', () => {
    const doc = parse(text('gitlab-ci.yml'));
    expect(doc.conformance.parallel).toBe(3);
    expect(doc.conformance.script.join('\n')).toContain('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"');
    expect(doc.conformance.artifacts.reports.junit).toBeDefined();
    expect(doc['conformance-report'].artifacts.reports.junit).toBe('reports/junit-rules.xml');
    expect(doc['conformance-report'].artifacts.paths).toContain('reports/report.html');
  });

  it('GitHub: a matrix over the shards, artifacts uploaded and merged', () => {
    const doc = parse(text('github-actions.yml'));
    expect(doc.jobs.shard.strategy.matrix.shard).toEqual([1, 2, 3]);
    const uses = JSON.stringify(doc.jobs.report.steps);
    expect(uses).toContain('actions/download-artifact');
    expect(uses).toContain('actions/upload-artifact');
    expect(uses).toContain('action-junit-report');
  });
});

describe('the command check can fail', () => {
  it('refuses an unknown flag and a bad shard', () => {
    expect(() => checkCommand(['run', '--shards', '1/3'])).toThrow(/has no option --shards/);
    expect(() => checkCommand(['run', '--shard', '4/3'])).toThrow(/--shard must be i\/n/);
    expect(() => checkCommand(['report', 'combine'])).toThrow(/unknown command/);
  });
});

describe('the README', () => {
  it('shows only commands the examples run', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    const shown = blocks.flatMap((b) => b.split('\n').filter((l) => /npx idp-conformance/.test(l)));
    expect(shown.length).toBeGreaterThan(0);
    const examples = text('gitlab-ci.yml') + text('github-actions.yml');
    for (const line of shown) expect(examples).toContain(line.replace(/^\s*-\s*(run:\s*)?/, ''));
  });
});
