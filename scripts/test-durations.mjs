// `npm run test:durations`: after a whole `vitest run`, record each test file's duration (seconds,
// from vitest's cache) in test/durations.json, the order test/setup/longest-first.ts falls back on
// where vitest has no cache of its own (a fresh clone, CI).
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'node_modules/.vite/vitest';
const caches = existsSync(dir)
  ? readdirSync(dir)
      .map((d) => join(dir, d, 'results.json'))
      .filter(existsSync)
  : [];
if (!caches.length) {
  process.stderr.write('test:durations: no vitest cache yet; run `npx vitest run` first\n');
  process.exit(2);
}
// Files vitest's cache does not hold (a run of a few files keeps only theirs) keep their record.
const out = existsSync('test/durations.json') ? JSON.parse(readFileSync('test/durations.json', 'utf8')) : {};
for (const path of Object.keys(out)) if (!existsSync(path)) delete out[path];
for (const file of caches) {
  const { results } = JSON.parse(readFileSync(file, 'utf8'));
  for (const [key, { duration }] of results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (existsSync(path) && duration > 0) out[path] = Math.round(duration / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
writeFileSync('test/durations.json', JSON.stringify(sorted, null, 2) + '\n');
process.stdout.write(`test/durations.json: ${Object.keys(sorted).length} files\n`);
