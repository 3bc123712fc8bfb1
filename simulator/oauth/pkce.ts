/** PKCE (RFC 7636): the verifier's alphabet and length, the S256 challenge and its comparison. */
import { createHash } from 'node:crypto';
import { limits } from '../../spec/index.js';
import { sameSecret } from './compare.js';

export const CHALLENGE_METHODS = ['S256'] as const;

export function s256(verifier: string): string {
  // UTF-8, not ASCII: the same bytes for every valid verifier, and no silent folding of others.
  return createHash('sha256').update(verifier, 'utf8').digest('base64url');
}

/** An S256 challenge is the unpadded URL-safe base64 of a SHA-256 digest: always this long. */
export const CHALLENGE_LENGTH = s256('').length;

export function challengeProblem(challenge: string): string | null {
  if (challenge.length !== CHALLENGE_LENGTH || !/^[A-Za-z0-9_-]+$/.test(challenge)) {
    return `code_challenge must be ${CHALLENGE_LENGTH} characters of URL-safe base64 without padding`;
  }
  return null;
}

export function verifierProblem(verifier: string): string | null {
  const { verifierMinLength: min, verifierMaxLength: max } = limits();
  if (verifier.length < min || verifier.length > max) return `code_verifier must be ${min} to ${max} characters long`;
  if (!/^[A-Za-z0-9\-._~]+$/.test(verifier)) return 'code_verifier may contain only A-Z a-z 0-9 - . _ ~';
  return null;
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return sameSecret(s256(verifier), challenge);
}
