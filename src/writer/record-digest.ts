/**
 * WARC block and payload digests (`sha1:BASE32`, Heritrix's form) computed
 * with node:crypto while warcio makes its one pass over a record.
 *
 * warcio would compute them itself, but it creates a fresh hash-wasm
 * instance per digest (0.3-0.7 ms each, six per capture), which measured as
 * most of the writer's time on ordinary pages. So each record is given a
 * placeholder digest (warcio then creates no hasher), its content flows
 * through a DigestTap during warcio's pass, and the real values replace the
 * placeholders before the record is written. warcio still computes
 * Content-Length and lays out the record.
 *
 * Cost: each hash sees each byte once, straight from the chunks warcio
 * pulls (no copy). A payload hash is only made for a record that has a
 * payload digest to fill (a response): a capture costs three block hashes
 * and one payload hash. The body is hashed twice (block and payload) since
 * SHA-1 state cannot be shared across the head prefix; that second pass is
 * also what checks the stored body against the fetcher's digest.
 */
import { ArchiverError } from '../core/errors.js';
import { PayloadDigester } from '../fetch/payload-digest.js';
import type { WARCSerializer } from './warcio.js';

/** Stands in for a digest until the pass over the record has computed it. */
export const PENDING_DIGEST = 'sha1:PENDING';

/** Hashes a record's block (HTTP head, then payload) and payload as they stream past. */
export class DigestTap {
  // The fetcher's digester: the same `sha1:BASE32` form it put in exchange.payloadDigest.
  readonly #block = new PayloadDigester();
  readonly #payload: PayloadDigester | null;

  /**
   * `head`: the HTTP head bytes exactly as warcio writes them, or null for
   * records without one. `withPayload`: whether payloadDigest() will be asked for.
   */
  constructor(head: Uint8Array | null, withPayload: boolean) {
    if (head) this.#block.update(head);
    this.#payload = withPayload ? new PayloadDigester() : null;
  }

  /** Hash the next chunk of the record's payload. */
  feed(chunk: Uint8Array): void {
    this.#block.update(chunk);
    this.#payload?.update(chunk);
  }

  /** The record content to give warcio: every chunk is hashed as warcio pulls it (one pass only). */
  wrap(source: () => AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
    const tap = this;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of source()) {
          tap.feed(chunk);
          yield chunk;
        }
      },
    };
  }

  /** Call once, after the pass. */
  blockDigest(): string {
    return this.#block.digest();
  }

  /** Call once, after the pass; only for a tap made withPayload. */
  payloadDigest(): string {
    if (!this.#payload) throw new ArchiverError('ARCHIVER_INTERNAL', 'DigestTap: made without a payload hash');
    return this.#payload.digest();
  }
}

/**
 * Run warcio's pass over the record, then put the real digests in place of
 * the placeholders. `payload`: 'computed' for a record with a payload,
 * 'keep' when the header already holds its final value (revisit), 'none' to
 * drop it (request, metadata: no payload worth a digest).
 * Returns the uncompressed record size: WARC head, CRLF, block, CRLFCRLF.
 */
export async function finishDigests(ser: WARCSerializer, tap: DigestTap | null, payload: 'computed' | 'keep' | 'none'): Promise<number> {
  const blockBytes = await ser.digestRecord();
  if (tap) {
    setDigests(ser.record.warcHeaders.headers, tap, payload);
    // warcio encoded the head during its pass; encode it again with the final values, as it does.
    ser.warcHeadersBuff = Buffer.from(ser.record.warcHeaders.toString(), 'utf8');
  }
  return (ser.warcHeadersBuff?.length ?? 0) + 2 + blockBytes + 4;
}

/**
 * A record's digest headers from its tap, once the whole block went through
 * it: the block digest, and the payload digest as `payload` says (see
 * finishDigests). The streaming and the in-memory paths (in-memory-records.ts)
 * both fill them here.
 */
export function setDigests(headers: { set(name: string, value: string): unknown; delete(name: string): unknown }, tap: DigestTap, payload: 'computed' | 'keep' | 'none'): void {
  headers.set('WARC-Block-Digest', tap.blockDigest());
  if (payload === 'computed') headers.set('WARC-Payload-Digest', tap.payloadDigest());
  else if (payload === 'none') headers.delete('WARC-Payload-Digest');
}
