/**
 * The worker side of BatchedWorker's protocol: each message is an array of
 * `{ id, input }`; every input goes through `handle`, and one reply carries
 * all the answers (`{ id, output }`, or `{ id, error }` when `handle`
 * throws, so the caller's fallback redoes that one). `transfers` names the
 * buffers of an output to move rather than copy. The thread takes
 * `threadName` (thread-name.ts), so `top -H` and the bench can tell it apart.
 */
import { parentPort, type TransferListItem } from 'node:worker_threads';
import { nameThisThread } from './thread-name.js';

/** The message a worker posts once it is ready for work. */
export const WORKER_READY = 'ready';

export function serveBatches<In, Out>(
  threadName: string,
  handle: (input: In) => Out | Promise<Out>,
  transfers: (output: Out) => TransferListItem[] = () => [],
  prepare: () => Promise<unknown> = async () => {},
): void {
  const port = parentPort;
  if (port === null) throw new Error('serveBatches: not running on a worker thread');
  nameThisThread(threadName);
  port.on('message', async (requests: { id: number; input: In }[]) => {
    const replies: ({ id: number; output: Out } | { id: number; error: string })[] = [];
    const moved: TransferListItem[] = [];
    for (const { id, input } of requests) {
      try {
        const output = await handle(input);
        replies.push({ id, output });
        moved.push(...transfers(output));
      } catch (err) {
        replies.push({ id, error: err instanceof Error ? err.message : String(err) });
      }
    }
    port.postMessage(replies, moved);
  });
  // A failed preparation is the first request's to meet (and its fallback's to redo).
  prepare().then(
    () => port.postMessage(WORKER_READY),
    () => port.postMessage(WORKER_READY),
  );
}
