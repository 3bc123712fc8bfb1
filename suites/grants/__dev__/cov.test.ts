import { it } from 'vitest';
import { rules } from '/work/main/spec/index.js';
import { allChecks } from '/work/main/suites/index.js';
it('cov', () => {
  const named = new Map<string, string[]>();
  for (const c of allChecks()) for (const r of c.rules) named.set(r, [...(named.get(r) ?? []), c.id]);
  const known = new Set(rules().map((r) => r.id));
  const unknown = [...named.keys()].filter((r) => !known.has(r));
  const missing = rules().filter((r) => r.level !== 'info' && !named.has(r.id)).map((r) => `${r.id}(${r.level})`);
  console.log('UNKNOWN', unknown.join(' '));
  console.log('MISSING', missing.join(' '));
});
