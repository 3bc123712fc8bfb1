/**
 * Content codings undone as a client would (RFC 9110 §8.4.1), the output bounded: what the HTTP
 * target and the proxy's judge read of a compressed answer.
 */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codings, decodeContent } from '../../suites/target/content-coding.js';

const text = Buffer.from(JSON.stringify({ access_token: 'x', token_type: 'Bearer' }));
const MiB = 1024 * 1024;

describe('decodeContent', () => {
  it.each([
    ['gzip', gzipSync(text)],
    ['X-GZIP', gzipSync(text)],
    ['deflate', deflateSync(text)],
    ['deflate', deflateRawSync(text)],
    ['br', brotliCompressSync(text)],
    ['gzip, br', brotliCompressSync(gzipSync(text))],
    ['identity, gzip', gzipSync(text)],
  ])('undoes %s', (header, body) => {
    expect(decodeContent(header, body, MiB)).toEqual({ ok: true, body: text });
  });

  it('leaves a body without a coding as it is', () => {
    for (const header of [null, '', 'identity'])
      expect(decodeContent(header, text, MiB)).toEqual({ ok: true, body: text });
  });

  it('says why it cannot: an unknown coding, a broken body, an expansion past the bound, a pile of codings', () => {
    expect(decodeContent('zstd', text, MiB)).toEqual({ ok: false, why: 'unknown', coding: 'zstd' });
    expect(decodeContent('gzip', text, MiB)).toEqual({ ok: false, why: 'broken', coding: 'gzip' });
    // 8 MiB of one byte compresses to a few KiB: the bound stops it, not the memory.
    const bomb = gzipSync(Buffer.alloc(8 * MiB));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(decodeContent('gzip', bomb, MiB)).toEqual({ ok: false, why: 'too-large', coding: 'gzip' });
    expect(decodeContent('gzip, gzip, gzip, gzip', text, MiB)).toMatchObject({ ok: false, why: 'unknown' });
  });

  it('lists codings in the order applied, identity none', () => {
    expect(codings(' GZIP ,identity, br ')).toEqual(['gzip', 'br']);
    expect(codings(undefined)).toEqual([]);
  });
});
