/**
 * PKCE at its boundaries, one input changed at a time: each verifier below matches its own
 * challenge, so only the length or the alphabet check can refuse it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHALLENGE_LENGTH,
  CHALLENGE_METHODS,
  challengeProblem,
  s256,
  verifierMatches,
  verifierProblem,
} from '../../../simulator/oauth/pkce.js';
import { L, app, code, exchangeForm, signInRoot, world } from './helpers.js';

const LENGTH_PROBLEM = `code_verifier must be ${L.verifierMinLength} to ${L.verifierMaxLength} characters long`;
const ALPHABET_PROBLEM = 'code_verifier may contain only A-Z a-z 0-9 - . _ ~';
const CHALLENGE_PROBLEM = 'code_challenge must be 43 characters of URL-safe base64 without padding';

describe('s256 and the challenge', () => {
  it('computes the RFC 7636 appendix B example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(
      verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
    ).toBe(true);
    expect(
      verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
    ).toBe(false);
  });

  it('hashes the UTF-8 bytes of the verifier', () => {
    const utf8 = createHash('sha256').update(Buffer.from('é', 'utf8')).digest('base64url');
    expect(s256('é')).toBe(utf8);
    expect(utf8).not.toBe(createHash('sha256').update(Buffer.from('é', 'latin1')).digest('base64url'));
  });

  it('offers S256 only and knows the challenge is 43 characters', () => {
    expect(CHALLENGE_METHODS).toEqual(['S256']);
    expect(CHALLENGE_LENGTH).toBe(43);
  });

  it('accepts exactly 43 URL-safe base64 characters, every letter of the alphabet included', () => {
    expect(challengeProblem('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBeNull();
    expect(challengeProblem('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq')).toBeNull();
    expect(challengeProblem('rstuvwxyz0123456789-_AAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
  });

  it('refuses one character too few or too many, with the exact description', () => {
    expect(challengeProblem('A'.repeat(42))).toBe(CHALLENGE_PROBLEM);
    expect(challengeProblem('A'.repeat(44))).toBe(CHALLENGE_PROBLEM);
    expect(challengeProblem('')).toBe(CHALLENGE_PROBLEM);
  });

  it('refuses a foreign character at the start, in the middle or at the end', () => {
    const ok = 'A'.repeat(42);
    expect(challengeProblem(`=${ok}`)).toBe(CHALLENGE_PROBLEM);
    expect(challengeProblem(`${ok}=`)).toBe(CHALLENGE_PROBLEM);
    expect(challengeProblem(`${ok.slice(0, 21)}+${ok.slice(21)}`)).toBe(CHALLENGE_PROBLEM);
    expect(challengeProblem(`${ok.slice(0, 21)}/${ok.slice(21)}`)).toBe(CHALLENGE_PROBLEM);
  });
});

describe('verifierProblem', () => {
  const min = L.verifierMinLength;
  const max = L.verifierMaxLength;

  it('accepts the shortest and the longest verifier and every unreserved character', () => {
    expect(verifierProblem('a'.repeat(min))).toBeNull();
    expect(verifierProblem('a'.repeat(max))).toBeNull();
    expect(verifierProblem('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')).toBeNull();
  });

  it('refuses one character too few or too many, with the exact description', () => {
    expect(verifierProblem('a'.repeat(min - 1))).toBe(LENGTH_PROBLEM);
    expect(verifierProblem('a'.repeat(max + 1))).toBe(LENGTH_PROBLEM);
    expect(verifierProblem('')).toBe(LENGTH_PROBLEM);
  });

  it('refuses a reserved character at the start, in the middle or at the end', () => {
    const ok = 'a'.repeat(min);
    expect(verifierProblem(`+${ok}`)).toBe(ALPHABET_PROBLEM);
    expect(verifierProblem(`${ok}=`)).toBe(ALPHABET_PROBLEM);
    expect(verifierProblem(`${ok.slice(0, 20)}/${ok.slice(20)}`)).toBe(ALPHABET_PROBLEM);
    expect(verifierProblem(`${ok.slice(0, 20)} ${ok.slice(20)}`)).toBe(ALPHABET_PROBLEM);
  });
});

describe('the token endpoint refuses a verifier that matches its challenge but breaks the format', () => {
  async function exchange(verifier: string) {
    const w = world();
    await signInRoot(w);
    const c = await code(w, 'public', { verifier });
    return w
      .http()
      .post('/oauth/token')
      .type('form')
      .send(exchangeForm(w, 'public', c.code, verifier));
  }

  it.each([
    ['one character too long', 'a'.repeat(L.verifierMaxLength + 1)],
    ['one character too short', 'a'.repeat(L.verifierMinLength - 1)],
    ['a reserved character', `${'a'.repeat(L.verifierMinLength)}+`],
  ])('%s: invalid_grant', async (_, verifier) => {
    const res = await exchange(verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('the same exchange with a verifier of the maximum length succeeds', async () => {
    expect((await exchange('a'.repeat(L.verifierMaxLength))).status).toBe(200);
  });

  it('the authorization endpoint names a malformed challenge', async () => {
    const w = world();
    await signInRoot(w);
    const a = app(w.sim, 'public');
    const res = await w.browser.get('/oauth/authorize').query({
      client_id: a.uid,
      redirect_uri: a.redirectUris[0],
      response_type: 'code',
      code_challenge: `${'A'.repeat(42)}=`,
      code_challenge_method: 'S256',
    });
    const location = new URL(res.headers.location);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe(CHALLENGE_PROBLEM);
  });
});
