/**
 * Failure holds of hosts that share queues with other hosts (elfHash,
 * surtAuthority assignment). A host whose robots.txt is unavailable or whose
 * server fails at the transport level is held: its gate stays shut until
 * the hold ends (host-gate.ts). In a queue of its own (hostname assignment)
 * the queue simply snoozes with it; in a shared queue that would stall every
 * other host's URIs behind it. So each of its URIs that reaches the head of
 * a shared queue is set aside here instead: still stored and counted, out
 * of the head buffer, not claimable, remembered in memory under its host.
 * When the hold ends (the host's gate time has passed) they go back to
 * their queues, whose order puts them where they were.
 *
 * Nothing here is saved: after a stop, set-aside URIs are simply queued
 * again, and the hold survives as the host's saved gate time.
 */
import { DelayHeap } from './delay-heap.js';
import type { HeadItem, WorkQueue } from './work-queue.js';

interface Hold {
  /** Epoch ms the hold ends, as last known (the host's gate time). */
  until: number;
  /** Its URIs set aside, in the order they reached a queue head. */
  aside: { queue: WorkQueue; item: HeadItem }[];
}

export class SetAside {
  readonly #holds = new Map<string, Hold>();
  /** Hold ends; an entry whose time is not its hold's `until` is stale. */
  readonly #ends = new DelayHeap<string>();
  #count = 0;

  /** URIs set aside now. */
  get count(): number {
    return this.#count;
  }

  /** `host` failed: hold it until `until` (or later, if it is held already). */
  hold(host: string, until: number): void {
    const hold = this.#holds.get(host);
    if (hold === undefined) this.#holds.set(host, { until, aside: [] });
    else if (until > hold.until) hold.until = until;
    else return;
    this.#ends.push(until, host);
  }

  /** If the queue's head URI belongs to a held host, take it out of the way; whether it did. */
  setAsideHead(queue: WorkQueue): boolean {
    const head = queue.head[0];
    const hold = head === undefined ? undefined : this.#holds.get(head.host);
    if (hold === undefined) return false;
    hold.aside.push({ queue, item: queue.setHeadAside() });
    this.#count++;
    return true;
  }

  /** Earliest time a hold may end; Infinity when none. */
  peekTime(): number {
    return this.#ends.peekTime();
  }

  /**
   * End the holds due by `now` whose host's gate is open by then (a later
   * gate time keeps the host held until it): their URIs go back to their
   * queues. Returns the queues given URIs back.
   */
  release(now: number, gateOpenAt: (host: string) => number, headSize: number): Set<WorkQueue> {
    const touched = new Set<WorkQueue>();
    while (this.#ends.peekTime() <= now) {
      const { at, item: host } = this.#ends.pop()!;
      const hold = this.#holds.get(host);
      if (hold === undefined || at !== hold.until) continue;
      const openAt = gateOpenAt(host);
      if (openAt > now) {
        hold.until = openAt;
        this.#ends.push(openAt, host);
        continue;
      }
      this.#holds.delete(host);
      this.#count -= hold.aside.length;
      for (const { queue, item } of hold.aside) {
        queue.takeBack(item, headSize);
        touched.add(queue);
      }
    }
    return touched;
  }
}
