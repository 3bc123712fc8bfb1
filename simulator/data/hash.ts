/**
 * Deterministic numbers from (seed, collection, index): every generated record is a pure
 * function of them, so nothing is stored and any record can be produced in O(1).
 */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    // fold both halves of the number so indexes above 2^32 still differ
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h = Math.imul(h ^ Math.floor(part / 0x100000000), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

export function pick<T>(list: readonly T[], h: number): T {
  return list[h % list.length];
}

export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * The bucket a position falls into when `count` positions are spread over `buckets` ordered
 * buckets: non-decreasing in pos, so names chosen by bucket from a sorted list sort like ids.
 */
export function bucket(pos: number, count: number, buckets: number): number {
  return Math.min(buckets - 1, Math.floor((pos * buckets) / Math.max(1, count)));
}

/** Word lists, each sorted by plain code-unit order (the order keyset pagination compares in). */
export const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Alice',
  'Ana',
  'Barbara',
  'Boris',
  'Carla',
  'Chen',
  'Dana',
  'David',
  'Elena',
  'Emeka',
  'Fatima',
  'Frank',
  'Grace',
  'Hana',
  'Ivan',
  'Jamal',
  'Julia',
  'Kenji',
  'Lena',
  'Liam',
  'Maria',
  'Mateo',
  'Nadia',
  'Noah',
  'Olga',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sam',
  'Sofia',
  'Tariq',
  'Uma',
  'Victor',
  'Wei',
  'Xenia',
  'Yusuf',
  'Zoe',
].sort();

export const LAST_NAMES = [
  'Abbott',
  'Baker',
  'Castro',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Hoffmann',
  'Ito',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Muller',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quispe',
  'Rossi',
  'Silva',
  'Tanaka',
  'Usman',
  'Varga',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zhang',
].sort();

export const ADJECTIVES = [
  'agile',
  'bold',
  'calm',
  'deep',
  'eager',
  'fast',
  'green',
  'happy',
  'icy',
  'jolly',
  'keen',
  'lucid',
  'mellow',
  'noble',
  'open',
  'proud',
  'quiet',
  'rapid',
  'solid',
  'tidy',
  'urban',
  'vivid',
  'warm',
  'young',
].sort();

export const NOUNS = [
  'anchor',
  'beacon',
  'canyon',
  'delta',
  'engine',
  'falcon',
  'garden',
  'harbor',
  'island',
  'jungle',
  'kernel',
  'lantern',
  'meadow',
  'nebula',
  'orbit',
  'prism',
  'quartz',
  'river',
  'summit',
  'tundra',
].sort();

export const VERBS = ['Add', 'Fix', 'Improve', 'Refactor', 'Remove', 'Support', 'Update', 'Document'];
export const TOPICS = [
  'login page',
  'token refresh',
  'pagination links',
  'CI cache',
  'search index',
  'webhook retries',
  'audit log export',
  'registry cleanup',
  'dark mode',
  'rate limiter',
  'file upload',
  'merge checks',
];

/** A 32-bit number from a string (paths, ref names), to feed mix(). */
export function hashString(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) n = (Math.imul(n, 31) + text.charCodeAt(i)) | 0;
  return n >>> 0;
}

/** A 40-hex-digit object id (commit, blob, pipeline sha) from mix() parts. */
export function objectHex(...parts: number[]): string {
  let out = '';
  for (let i = 0; out.length < 40; i++)
    out += mix(...parts, i)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, 40);
}
