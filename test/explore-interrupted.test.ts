/**
 * `npm run explore:pairs` stopped by Ctrl-C: the run it stops is not judged (its unreached checks
 * would read as rules the pair no longer breaks, a false row), and it ends at once with exit 130
 * and the table of what it judged before, instead of going on to the next pair.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const script = new URL('../dist/bench/fault-pairs.js', import.meta.url).pathname;

describe('explore:pairs interrupted', () => {
  it.skipIf(!existsSync(script))(
    'judges no stopped run and ends with 130',
    async () => {
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
          if (!started && err.includes('pairs\n')) setTimeout(() => child.kill('SIGINT'), 300);
        });
        child.on('exit', resolve);
      });
      expect(err).toMatch(/explore:pairs: stopped by SIGINT; the run it stopped is not judged/);
      expect(code).toBe(130);
      expect(out).toMatch(/^0 compounds run, 0 break the union/);
    },
    60_000,
  );
});
