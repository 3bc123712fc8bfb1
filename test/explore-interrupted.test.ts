/**
 * `npm run explore:pairs` stopped by Ctrl-C: the run it stops is not judged (its unreached checks
 * would read as rules the pair no longer breaks, a false row), and it ends at once with exit 130
 * and the table of what it judged before, instead of going on to the next pair.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const script = new URL('../dist/bench/fault-pairs.js', import.meta.url).pathname;
const union = new URL('../dist/bench/blame-union.js', import.meta.url).pathname;

/** explore:pairs on one sample, stopped by SIGINT `afterMs` after its first line. */
async function interrupted(afterMs: number) {
  const child = spawn(process.execPath, [script, '--side', 'api', '--sample', '3', '--runs', '1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      const started = err.includes('pairs\n');
      err += d;
      // The first line says what it will run: the runs start after it.
      if (!started && err.includes('pairs\n')) setTimeout(() => child.kill('SIGINT'), afterMs);
    });
    child.on('exit', resolve);
  });
  return { code, out, err };
}

describe('explore:pairs interrupted', () => {
  it.skipIf(!existsSync(script))(
    'judges no stopped run and ends with 130',
    async () => {
      const { code, out, err } = await interrupted(300);
      expect(err).toMatch(/explore:pairs: stopped by SIGINT; the run it stopped is not judged/);
      expect(code).toBe(130);
      expect(out).toMatch(/^0 compounds run, 0 break the union/);
    },
    60_000,
  );

  it.skipIf(!existsSync(union))(
    'a Ctrl-C between two runs, when no run listens, stops it the same way after the next run',
    async () => {
      // Between two runs no run's handler is set: without keepSignals Node's default ended the
      // process at once, no line, no table, no 130 (seen when a busy machine delayed the next run).
      const between = `
        const { keepSignals, endIfInterrupted } = await import(${JSON.stringify(union)});
        keepSignals();
        process.kill(process.pid, 'SIGINT');
        await new Promise((r) => setTimeout(r, 200));
        endIfInterrupted('explore:pairs', { checks: [] }, [], []);
        process.stdout.write('went on\\n');`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', between], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(err).toBe('explore:pairs: stopped by SIGINT; the run it stopped is not judged\n');
      expect(code).toBe(130);
      expect(out).toMatch(/^0 compounds run, 0 break the union/);
      expect(out).not.toContain('went on');
    },
    30_000,
  );
});
