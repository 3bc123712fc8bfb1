/**
 * Bodies in a content coding (RFC 9110 §8.4.1): gzip (x-gzip), deflate and br, read as browsers
 * and HTTP clients read them. A request without Accept-Encoding accepts any coding (RFC 9110
 * §12.5.3), so a provider may compress what the harness asks, and a client behind `proxy` usually
 * asks for it: read raw, every JSON answer would break rules it keeps. The output is bounded: a
 * small body cannot expand past the bytes a response may have.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { own } from '../shared/own.js';

export type Decoded =
  { ok: true; body: Buffer } | { ok: false; why: 'too-large' | 'unknown' | 'broken'; coding: string };

/** More codings than this on one body is no real server's doing: not decoded (each pass costs up to the bound). */
const MAX_CODINGS = 3;

const tooLarge = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';

type Options = { maxOutputLength: number };

const DECODERS: Record<string, (body: Buffer, options: Options) => Buffer> = {
  gzip: (body, options) => gunzipSync(body, options),
  'x-gzip': (body, options) => gunzipSync(body, options),
  // RFC 9110 §8.4.1.2 means the zlib format; some servers send raw deflate, which clients accept too.
  deflate: (body, options) => {
    try {
      return inflateSync(body, options);
    } catch (error) {
      if (tooLarge(error)) throw error;
      return inflateRawSync(body, options);
    }
  },
  br: (body, options) => brotliDecompressSync(body, options),
};

/** The codings a Content-Encoding lists, in the order they were applied; identity is none. */
export function codings(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** `body` with its codings undone, last applied first, each pass's output at most `maxBytes`. */
export function decodeContent(header: string | null | undefined, body: Buffer, maxBytes: number): Decoded {
  const listed = codings(header);
  if (listed.length > MAX_CODINGS) return { ok: false, why: 'unknown', coding: listed.join(', ') };
  let out = body;
  for (const coding of listed.reverse()) {
    const decode = own(DECODERS, coding);
    if (!decode) return { ok: false, why: 'unknown', coding };
    try {
      out = decode(out, { maxOutputLength: maxBytes });
    } catch (error) {
      return { ok: false, why: tooLarge(error) ? 'too-large' : 'broken', coding };
    }
  }
  return { ok: true, body: out };
}
