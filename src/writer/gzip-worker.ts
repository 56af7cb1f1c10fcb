/**
 * WARC gzip members compressed on a worker thread, so none of it costs the
 * crawl's main thread. In-process, even with the pool taking the larger
 * records, zlib was the main thread's biggest single cost (12-14% of it in
 * `node --cpu-prof`): every gzipSync of a small record and every pool round
 * trip pays handle set-up and stream machinery there. Here a capture's
 * records are copied into fresh buffers and transferred (nothing is cloned
 * twice), requests of one event-loop turn travel together (BatchedWorker),
 * and the worker deflates with the same options as the in-process path, so
 * the bytes are the same either way. If the worker fails or exits, its
 * work and everything after is compressed in-process: a crawl never stops
 * because of it.
 */
import { Worker } from 'node:worker_threads';
import { BatchedWorker } from '../core/batched-worker.js';
import { gzipOptionsFor, inProcessGzip, type MemberCompressor } from './gzip-member.js';

/** The worker's whole program (CommonJS, evaluated: no file to locate, whether run from dist/ or through tsx). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { gzipSync } = require('node:zlib');
parentPort.on('message', (requests) => {
  const replies = [];
  const transfer = [];
  for (const { id, input } of requests) {
    try {
      const output = input.buffers.map((b, i) => {
        const out = gzipSync(new Uint8Array(b), input.options[i]);
        return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
      });
      replies.push({ id, output });
      transfer.push(...output);
    } catch (err) {
      replies.push({ id, error: String((err && err.message) || err) });
    }
  }
  parentPort.postMessage(replies, transfer);
});
`;

interface GzipRequest {
  buffers: ArrayBuffer[];
  options: ReturnType<typeof gzipOptionsFor>[];
}

export interface GzipWorkerOpts {
  /** Replaces the worker's program: for tests of the fallback. */
  workerSource?: string;
}

export class GzipWorker implements MemberCompressor {
  /** Members come back as ArrayBuffers from the worker, as Buffers from the fallback. */
  readonly #pool: BatchedWorker<GzipRequest, (ArrayBuffer | Buffer)[]>;

  constructor(opts: GzipWorkerOpts = {}) {
    const source = opts.workerSource ?? WORKER_SOURCE;
    this.#pool = new BatchedWorker(() => new Worker(source, { eval: true }));
  }

  /** True once the worker failed and compression fell back to this thread. */
  get fellBack(): boolean {
    return this.#pool.fellBack;
  }

  async gzip(inputs: readonly Uint8Array[]): Promise<Buffer[]> {
    if (inputs.length === 0) return [];
    // Exact-size copies: transferring a pooled or sliced Buffer's whole backing store would take other data with it.
    const buffers = inputs.map((input) => {
      const copy = new ArrayBuffer(input.length);
      new Uint8Array(copy).set(input);
      return copy;
    });
    const options = inputs.map((input) => gzipOptionsFor(input.length));
    const members = await this.#pool.run({ buffers, options }, buffers, () => inProcessGzip.gzip(inputs));
    return members.map((m) => (Buffer.isBuffer(m) ? m : Buffer.from(m)));
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
