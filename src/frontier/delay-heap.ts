/**
 * A small binary min-heap of (time, item) pairs: the snoozed queues ordered
 * by wake time. Entries are never updated in place; the frontier pushes a
 * fresh entry when a wake time changes and ignores stale ones when popped,
 * which keeps this structure trivial.
 */
interface Entry<T> {
  at: number;
  item: T;
}

export class DelayHeap<T> {
  readonly #entries: Entry<T>[] = [];

  get size(): number {
    return this.#entries.length;
  }

  push(at: number, item: T): void {
    const a = this.#entries;
    a.push({ at, item });
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.at <= at) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = { at, item };
  }

  /** Earliest time in the heap, or Infinity when empty. */
  peekTime(): number {
    return this.#entries[0]?.at ?? Infinity;
  }

  /** Remove and return the earliest entry. */
  pop(): Entry<T> | undefined {
    const a = this.#entries;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const child = r < a.length && a[r]!.at < a[l]!.at ? r : l;
      if (a[child]!.at >= last.at) break;
      a[i] = a[child]!;
      i = child;
    }
    a[i] = last;
    return top;
  }
}
