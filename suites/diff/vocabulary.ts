/**
 * The member values a diff may show: the words spec/openapi.yaml lists for a member (`enum`,
 * `const`, `examples`), such as `token_type: bearer` or `error: invalid_grant`. Any other value
 * is generated (a token, an id, a time) and is compared by its type only, so no secret of either
 * side can reach a report through a diff.
 */
import { openapi } from '../../spec/index.js';

let words: Map<string, Set<string>> | undefined;

function collect(node: unknown, into: Map<string, Set<string>>, depth = 0): void {
  if (!node || typeof node !== 'object' || depth > 30) return;
  if (Array.isArray(node)) {
    for (const item of node) collect(item, into, depth + 1);
    return;
  }
  const record = node as Record<string, unknown>;
  const properties = record.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
      if (!schema || typeof schema !== 'object') continue;
      const s = schema as { enum?: unknown[]; const?: unknown; examples?: unknown[] };
      const values = [...(s.enum ?? []), ...(s.const !== undefined ? [s.const] : []), ...(s.examples ?? [])];
      for (const v of values) {
        if (typeof v !== 'string') continue;
        const set = into.get(name) ?? new Set<string>();
        set.add(v.toLowerCase());
        into.set(name, set);
      }
    }
  }
  for (const value of Object.values(record)) collect(value, into, depth + 1);
}

/** Whether `value` of member `name` is a word of the spec (compared case-blind: `Bearer` shows). */
export function isVocabulary(name: string, value: string): boolean {
  if (!words) {
    words = new Map();
    collect(openapi().components, words);
  }
  return words.get(name)?.has(value.toLowerCase()) ?? false;
}
