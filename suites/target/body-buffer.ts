/**
 * A body read chunk by chunk into one buffer that grows by doubling. Each chunk is copied, never
 * kept: a target that answers in chunks of one byte (chunked transfer coding, six bytes on the
 * wire each) made each a Buffer object of its own, about 400 bytes of memory per byte of body: a
 * 1 MB answer held 480 MB, an 8 MB one (within --max-body) 3.3 GB. Now memory is at most twice
 * the body, however it is cut.
 */

/** The first allocation: most answers fit. */
const INITIAL_BYTES = 16 * 1024;

export interface BodyBuffer {
  readonly size: number;
  add(chunk: Buffer): void;
  /** The bytes so far (a view of the buffer, valid until the next add or clear). */
  bytes(): Buffer;
  /** Forget the bytes and the memory they took. */
  clear(): void;
}

export function createBodyBuffer(): BodyBuffer {
  let buffer = Buffer.alloc(0);
  let size = 0;
  return {
    get size() {
      return size;
    },
    add(chunk) {
      if (size + chunk.length > buffer.length) {
        let capacity = Math.max(buffer.length, INITIAL_BYTES);
        while (capacity < size + chunk.length) capacity *= 2;
        const grown = Buffer.allocUnsafe(capacity);
        buffer.copy(grown, 0, 0, size);
        buffer = grown;
      }
      chunk.copy(buffer, size);
      size += chunk.length;
    },
    bytes: () => buffer.subarray(0, size),
    clear() {
      buffer = Buffer.alloc(0);
      size = 0;
    },
  };
}
