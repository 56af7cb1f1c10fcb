/**
 * The two waits every file writer here needs on a node WriteStream, done so
 * that an error can never leave a caller waiting forever: room in the buffer
 * again (back-pressure), and the descriptor released after end/destroy.
 */
import type { WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';

/**
 * Hold the stream's writes until the end of this event-loop turn, so that
 * everything written during one turn reaches the OS in one writev. Each
 * write handed to libuv's pool costs the main thread ~30 µs here (waking a
 * pool thread), against ~5 µs for a small write itself; the captures,
 * crawl.log lines and journal lines that finish in one turn now share one.
 * `end()` uncorks, so nothing is held past a close.
 */
export function corkForTurn(stream: Writable): void {
  if (stream.writableCorked > 0) return;
  stream.cork();
  setImmediate(() => stream.uncork());
}

/** Resolves on `drain`, or on `error`/`close` after which no drain will come (the caller checks its recorded failure). */
export function waitDrain(stream: WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const settle = (): void => {
      stream.off('drain', settle);
      stream.off('error', settle);
      stream.off('close', settle);
      resolve();
    };
    stream.on('drain', settle);
    stream.on('error', settle);
    stream.on('close', settle);
  });
}

/**
 * End (flush) or destroy (drop buffered writes) the stream and resolve once
 * it is closed: every in-flight write has finished and every error has been
 * emitted. Resolves at once if it is already closed.
 */
export function closeStream(stream: WriteStream, how: 'end' | 'destroy'): Promise<void> {
  if (stream.closed) return Promise.resolve();
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  if (how === 'end') stream.end();
  else stream.destroy();
  return closed;
}
