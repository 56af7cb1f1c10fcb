/**
 * Captures turned into gzip members on a worker thread: warcio's record
 * serialisation, the SHA-1 block and payload digests and deflate were
 * together about a quarter of the crawl's main thread (zlib alone 12-14%).
 * A body held in memory travels as bytes (a copy, transferred); bodies
 * spilled to disk, and records too large to compress whole, stay on the
 * in-process path (deflate on libuv's pool), as does everything when the
 * worker cannot run (from TypeScript sources under tsx) or fails.
 */
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import type { CaptureReply, CaptureRequest } from './capture-worker.js';
import { captureMembers, type CaptureMembers } from './capture-members.js';
import { inProcessGzip, WHOLE_GZIP_MAX_BYTES } from './gzip-member.js';
import type { CaptureRecordInput, WarcVersion } from './warc-records.js';

/** Room left under WHOLE_GZIP_MAX_BYTES for a record's WARC and HTTP heads. */
const HEAD_ROOM_BYTES = 64 * 1024;
/** Bodies up to this size go to the thread (an in-memory body is at most the fetcher's memory limit, 1 MiB). */
export const THREAD_BODY_MAX_BYTES = WHOLE_GZIP_MAX_BYTES - HEAD_ROOM_BYTES;

export class CaptureThread {
  /** Replies come from the thread, CaptureMembers from the in-process fallback. */
  readonly #pool: BatchedWorker<CaptureRequest, CaptureReply | CaptureMembers>;
  constructor() {
    this.#pool = new BatchedWorker(compiledWorker(new URL('./capture-worker.js', import.meta.url)));
  }

  get fellBack(): boolean {
    return this.#pool.fellBack;
  }

  async members(c: CaptureRecordInput, version: WarcVersion): Promise<CaptureMembers> {
    const here = (): Promise<CaptureMembers> => captureMembers(c, version, inProcessGzip);
    const { body, ...exchange } = c.exchange;
    if (this.#pool.fellBack || body.size > THREAD_BODY_MAX_BYTES) return here();
    const held = await body.head(body.size);
    if (held.length !== body.size) return here();
    const bytes = new Uint8Array(held.length);
    bytes.set(held);
    // Copied to its own exact-size buffer: a small Buffer is a view of node's
    // shared 8 KiB pool, and cloning a view copies its whole backing buffer.
    const requestHead = new Uint8Array(exchange.requestHead);
    const request: CaptureRequest = { capture: { ...c, exchange: { ...exchange, requestHead } }, body: bytes, version };
    const reply = await this.#pool.run(request, [bytes.buffer, requestHead.buffer], here);
    if (!('members' in reply)) return reply;
    const [main, req, metadata] = reply.members.map((m) => Buffer.from(m)) as [Buffer, Buffer, Buffer];
    return { main, request: req, metadata, mainId: reply.mainId, revisit: reply.revisit };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
