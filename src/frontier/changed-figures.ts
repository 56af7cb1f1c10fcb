/**
 * The figures a frontier has changed since its last write-behind commit:
 * which queues' saved figures (queue-meta.ts) and which hosts' gate times
 * are out of date. Each commit takes them as they stand then
 * (write-behind.ts), so a queue changed ten times between two commits is
 * written once.
 */
import type { WorkQueue } from './work-queue.js';
import type { MetaSnapshot } from './write-behind.js';

export class ChangedFigures {
  readonly #queues = new Set<WorkQueue>();
  readonly #hosts = new Set<string>();
  readonly #openAt: (host: string) => number;

  /** `openAt`: when a host's gate opens (epoch ms), read as the commit is made. */
  constructor(openAt: (host: string) => number) {
    this.#openAt = openAt;
  }

  queue(queue: WorkQueue): void {
    this.#queues.add(queue);
  }

  host(host: string): void {
    this.#hosts.add(host);
  }

  /** The queue is no longer this frontier's: its figures are not saved from here. */
  forget(queue: WorkQueue): void {
    this.#queues.delete(queue);
  }

  /** Nothing is out of date (after a resume: the figures are those just read). */
  clear(): void {
    this.#queues.clear();
    this.#hosts.clear();
  }

  /** What changed, as of now, and forget it: called by the store as it writes a batch. */
  take(): MetaSnapshot {
    const queues = [...this.#queues].map((q) => [q.key, q.meta()] as const);
    const hosts = [...this.#hosts].map((h) => [h, this.#openAt(h)] as const);
    this.clear();
    return { queues, hosts };
  }
}
