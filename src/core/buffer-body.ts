/** A BodyStore over bytes already in memory (small bodies, tests, revisits). */
import type { BodyStore } from './exchange.js';

export function bufferBody(bytes: Uint8Array): BodyStore {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    size: buf.length,
    async *stream() {
      if (buf.length > 0) yield buf;
    },
    async head(maxBytes: number) {
      return buf.subarray(0, Math.min(maxBytes, buf.length));
    },
    async dispose() {},
  };
}
