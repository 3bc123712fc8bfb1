#!/usr/bin/env node
/**
 * `node scripts/run-parallel.mjs NAME…`: the npm scripts NAME… at once. Each one's output is held
 * and printed whole when it ends, so lines of two tools never interleave; every script runs to its
 * end (all their complaints at once), then the exit code is 1 if any failed, each failure named.
 * `npm test` runs its single-threaded steps so (build, type check, dependency rules, lint): one
 * after another they left one of two cores idle for about a minute.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (!names.length) {
  process.stderr.write('usage: node scripts/run-parallel.mjs SCRIPT…\n');
  process.exit(2);
}

// npm sets npm_execpath to its own CLI when it starts a script; plain `npm` otherwise.
const [command, prefix] = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath]]
  : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];

function run(name) {
  return new Promise((resolve) => {
    const out = [];
    const err = [];
    const child = spawn(command, [...prefix, 'run', name, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    let ended = false;
    const end = (code, why) => {
      if (ended) return;
      ended = true;
      process.stdout.write(Buffer.concat(out));
      process.stderr.write(Buffer.concat(err));
      resolve(code === 0 ? undefined : `${name} ${why}`);
    };
    child.on('error', (error) => end(1, `could not start: ${error.message}`));
    child.on('close', (code, signal) => end(code, signal ? `ended by ${signal}` : `failed (exit ${code})`));
  });
}

const failures = (await Promise.all(names.map(run))).filter(Boolean);
for (const failure of failures) process.stderr.write(`run-parallel: ${failure}\n`);
process.exit(failures.length ? 1 : 0);
