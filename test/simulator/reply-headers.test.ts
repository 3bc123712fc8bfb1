/**
 * ReplyHeaders, the headers of every answer (a flat list since the bench's POST rows): Fetch's
 * reading of names (any case), set replacing, append joining, each set-cookie apart, and the
 * flat list Node's writeHead takes; and digest.ts's comparison, which no longer makes Buffers.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { json, ReplyHeaders } from '../../simulator/http.js';
import { digest, matchesDigest } from '../../simulator/digest.js';

describe('ReplyHeaders', () => {
  it('reads names in any case, set replaces in place, append joins, delete removes', () => {
    const h = new ReplyHeaders({ 'Content-Type': 'application/json', Vary: 'Origin' });
    expect(h.get('content-type')).toBe('application/json');
    h.set('CONTENT-TYPE', 'text/plain');
    h.append('vary', 'Accept');
    expect(h.toNodeList()).toEqual(['content-type', 'text/plain', 'vary', 'Origin, Accept']);
    h.delete('Vary');
    expect(h.has('vary')).toBe(false);
    expect(h.get('x-none')).toBeNull();
  });

  it('keeps each set-cookie apart; set replaces them all; Fetch sees them last', () => {
    const h = new ReplyHeaders();
    h.append('Set-Cookie', 'a=1');
    h.set('x-one', '1');
    h.append('set-cookie', 'b=2');
    expect(h.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(h.get('set-cookie')).toBe('a=1, b=2');
    expect(h.toNodeList()).toEqual(['set-cookie', 'a=1', 'x-one', '1', 'set-cookie', 'b=2']);
    expect([...h.toHeaders()]).toEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x-one', '1'],
    ]);
    h.set('set-cookie', 'c=3');
    expect(h.getSetCookie()).toEqual(['c=3']);
    h.delete('set-cookie');
    expect(h.get('set-cookie')).toBeNull();
  });

  it("json() sets the type first and the handler's headers over it; the list is a copy", () => {
    const reply = json(200, { a: 1 }, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
    const list = reply.headers.toNodeList();
    expect(list).toEqual(['content-type', 'application/problem+json', 'cache-control', 'no-store']);
    list.push('content-length', '7');
    expect(reply.headers.has('content-length')).toBe(false);
  });
});

describe('matchesDigest', () => {
  it('matches the value hashed and nothing else, whatever the length given', () => {
    const stored = digest('s3cret-value');
    expect(matchesDigest('s3cret-value', stored)).toBe(true);
    expect(matchesDigest('s3cret-valuf', stored)).toBe(false);
    expect(matchesDigest('', stored)).toBe(false);
    expect(matchesDigest('s3cret-value', stored.slice(0, -1))).toBe(false);
    expect(matchesDigest('s3cret-value', `${stored}A`)).toBe(false);
  });

  it('is keyed: never the plain SHA-256 of the value; one value, one digest in a process', () => {
    expect(digest('a')).not.toBe(createHash('sha256').update('a').digest('base64url'));
    expect(digest('a')).toBe(digest('a'));
    expect(digest('a')).toMatch(/^[\w-]{43}$/);
  });
});
