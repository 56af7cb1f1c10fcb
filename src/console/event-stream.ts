/**
 * One Server-Sent Events client. A watcher must never slow a crawl, and a
 * crawl at hundreds of captures a second would flood a browser: captures
 * and failures are sent at most BURST per WINDOW_MS and only while the
 * client keeps up (little left unsent in the socket); the others are
 * counted and the count rides on the next progress event. Progress and
 * state events are always sent.
 */
import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './http-io.js';

const WINDOW_MS = 1000;
const BURST = 40;
/** Bytes waiting in the socket past which droppable events are dropped. */
const MAX_BUFFERED_BYTES = 256 * 1024;
const HEARTBEAT_MS = 15_000;

export class EventStream {
  readonly #res: ServerResponse;
  readonly #now: () => number;
  #windowStart = 0;
  #inWindow = 0;
  #skipped = 0;
  #closed = false;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #onClose: Array<() => void> = [];

  constructor(res: ServerResponse, now: () => number = Date.now) {
    this.#res = res;
    this.#now = now;
    res.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write('retry: 3000\n\n');
    this.#heartbeat = setInterval(() => this.#write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.#heartbeat.unref();
    res.once('close', () => this.close());
  }

  /** Called once the client is gone or the stream is closed. */
  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#onClose.push(fn);
  }

  /** Always sent (progress, state); carries the count of events skipped since the last one as `skipped`. */
  send(event: string, data: Record<string, unknown>): void {
    const skipped = this.#skipped;
    this.#skipped = 0;
    this.#write(frame(event, skipped > 0 ? { ...data, skipped } : data));
  }

  /** Sent when the budget and the client allow (captures, failures). */
  offer(event: string, data: Record<string, unknown>): void {
    const now = this.#now();
    if (now - this.#windowStart >= WINDOW_MS) {
      this.#windowStart = now;
      this.#inWindow = 0;
    }
    if (this.#inWindow >= BURST || this.#res.writableLength > MAX_BUFFERED_BYTES) {
      this.#skipped++;
      return;
    }
    this.#inWindow++;
    this.#write(frame(event, data));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const fn of this.#onClose.splice(0)) fn();
    if (!this.#res.writableEnded) this.#res.end();
  }

  #write(text: string): void {
    if (!this.#closed && !this.#res.destroyed) this.#res.write(text);
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
