/**
 * WARC gzip members compressed on a worker thread, so none of it costs the
 * crawl's main thread. In-process, even with the pool taking the larger
 * records, zlib was the main thread's biggest single cost (12-14% of it in
 * `node --cpu-prof`): every gzipSync of a small record and every pool round
 * trip pays handle set-up and stream machinery there. Here the records of
 * every capture queued in one event-loop turn travel in one message (a
 * message wakes a thread, ~30-60 µs of CPU on this kind of machine, so one
 * per turn rather than one per capture), copied into fresh buffers and
 * transferred so nothing is cloned twice; the worker deflates them with the
 * same options the in-process path uses (same bytes either way) and sends
 * the members back, transferred, in one reply.
 *
 * If the worker fails or exits, every request in flight and every later one
 * is compressed in-process instead: a crawl never stops because of it.
 */
import { Worker } from 'node:worker_threads';
import { gzipOptionsFor, inProcessGzip, type MemberCompressor } from './gzip-member.js';

/** The worker's whole program (CommonJS, evaluated: no file to locate, whether run from dist/ or through tsx). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { gzipSync } = require('node:zlib');
parentPort.on('message', (requests) => {
  const replies = [];
  const transfer = [];
  for (const { id, inputs, options } of requests) {
    try {
      const members = inputs.map((input, i) => {
        const out = gzipSync(new Uint8Array(input), options[i]);
        return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
      });
      replies.push({ id, members });
      transfer.push(...members);
    } catch (err) {
      replies.push({ id, error: String((err && err.message) || err) });
    }
  }
  parentPort.postMessage(replies, transfer);
});
`;

interface Request {
  inputs: readonly Uint8Array[];
  resolve: (members: Buffer[]) => void;
  reject: (err: unknown) => void;
}

/** One capture's records as they travel. */
interface Message {
  id: number;
  inputs: ArrayBuffer[];
  options: ReturnType<typeof gzipOptionsFor>[];
}

interface Reply {
  id: number;
  members?: ArrayBuffer[];
  error?: string;
}

export interface GzipWorkerOpts {
  /** Replaces the worker's program: for tests of the fallback. */
  workerSource?: string;
}

export class GzipWorker implements MemberCompressor {
  readonly #source: string;
  #worker: Worker | null = null;
  /** Set once the worker has failed: from then on everything is compressed in-process. */
  #broken = false;
  #nextId = 0;
  readonly #inFlight = new Map<number, Request>();
  /** Requests of this turn, sent together at its end. */
  #outbox: Message[] = [];

  constructor(opts: GzipWorkerOpts = {}) {
    this.#source = opts.workerSource ?? WORKER_SOURCE;
  }

  /** True once the worker failed and compression fell back to this thread. */
  get fellBack(): boolean {
    return this.#broken;
  }

  gzip(inputs: readonly Uint8Array[]): Promise<Buffer[]> {
    if (this.#broken) return inProcessGzip.gzip(inputs);
    if (inputs.length === 0) return Promise.resolve([]);
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    // Exact-size copies: transferring a pooled or sliced Buffer's whole backing store would take other data with it.
    const copies = inputs.map((input) => {
      const copy = new ArrayBuffer(input.length);
      new Uint8Array(copy).set(input);
      return copy;
    });
    const options = inputs.map((input) => gzipOptionsFor(input.length));
    return new Promise<Buffer[]>((resolve, reject) => {
      // Keep the process alive only while something is being compressed.
      if (this.#inFlight.size === 0) worker.ref();
      this.#inFlight.set(id, { inputs, resolve, reject });
      if (this.#outbox.length === 0) setImmediate(() => this.#send());
      this.#outbox.push({ id, inputs: copies, options });
    });
  }

  #send(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    // The worker may have failed meanwhile: then #fallBack already took these requests.
    if (this.#worker === null || batch.length === 0) return;
    this.#worker.postMessage(
      batch,
      batch.flatMap((m) => m.inputs),
    );
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#broken = true;
    if (worker !== null) {
      this.#fallBack();
      await worker.terminate();
    }
  }

  #start(): Worker {
    const worker = new Worker(this.#source, { eval: true });
    worker.unref();
    worker.on('message', (replies: Reply[]) => {
      for (const reply of replies) this.#answer(reply);
    });
    worker.on('error', () => this.#fail(worker));
    worker.on('exit', () => this.#fail(worker));
    return worker;
  }

  #answer(reply: Reply): void {
    const request = this.#inFlight.get(reply.id);
    if (request === undefined) return;
    this.#inFlight.delete(reply.id);
    if (this.#inFlight.size === 0) this.#worker?.unref();
    if (reply.members !== undefined) request.resolve(reply.members.map((m) => Buffer.from(m)));
    else inProcessGzip.gzip(request.inputs).then(request.resolve, request.reject);
  }

  /** The worker died or failed: compress what it held, and everything after, here. */
  #fail(worker: Worker): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    this.#broken = true;
    this.#fallBack();
  }

  #fallBack(): void {
    const held = [...this.#inFlight.values()];
    this.#inFlight.clear();
    this.#outbox = [];
    for (const request of held) inProcessGzip.gzip(request.inputs).then(request.resolve, request.reject);
  }
}
