/** A seeded source for the harness's own choices (PKCE verifiers, state values): runs repeat exactly. */
/** The characters RFC 7636 allows in a code verifier (the source's `A-Z a-z 0-9 - . _ ~`); states and nonces are drawn from them too. */
export const VERIFIER_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

export interface Random {
  int(maxExclusive: number): number;
  string(length: number, alphabet: string): string;
}

export function createRandom(seed: number): Random {
  // mulberry32: tiny, good enough for test inputs, never for secrets of a real client.
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return {
    int,
    string: (length, alphabet) => Array.from({ length }, () => alphabet[int(alphabet.length)]).join(''),
  };
}
