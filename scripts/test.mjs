#!/usr/bin/env node
/**
 * `npm test`: the build (which type-checks sources and tests), then vitest beside the checks that
 * need no build (ESLint, Prettier, dependency-cruiser). Vitest keeps the terminal; the checks'
 * output is held and printed after it. The exit code is the first failure's, 0 when all pass.
 *
 * Side by side because vitest leaves about a third of two cores idle (its browser and
 * child-process tests wait) while ESLint's type-aware pass, cold in a fresh clone, keeps one core
 * busy for about half a minute: before, the checks ran first and vitest waited for them.
 */
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Run an npm script; `held`: its output is kept, not shown, and returned. */
function script(name, held) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (held)
      for (const stream of [child.stdout, child.stderr]) {
        stream.setEncoding('utf8');
        stream.on('data', (text) => (output += text));
      }
    child.on('error', (error) => resolve({ name, code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output }));
  });
}

const build = await script('build', false);
if (build.code !== 0) process.exit(build.code);
const [tests, checks] = await Promise.all([script('test:vitest', false), script('test:checks', true)]);
if (checks.output.trim()) process.stdout.write(`\n${checks.output.trimEnd()}\n`);
if (checks.code !== 0) process.stderr.write(`npm test: the checks (lint, format, dependencies) failed\n`);
process.exit(tests.code || checks.code);
