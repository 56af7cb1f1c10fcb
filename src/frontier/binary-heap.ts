/**
 * A binary min-heap under a given order: the one heap of the frontier
 * (snoozed queues by wake time, ready queues by priority). Entries are never
 * updated in place; callers push a fresh entry when a key changes and skip
 * stale ones when they pop, which keeps this structure trivial.
 */
export class BinaryHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  /** `before(a, b)`: `a` must come out before `b`. */
  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(item, a[parent]!)) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = item;
  }

  /** The first entry, left in place. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Remove and return the first entry. */
  pop(): T | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const child = r < a.length && this.#before(a[r]!, a[l]!) ? r : l;
      if (!this.#before(a[child]!, last)) break;
      a[i] = a[child]!;
      i = child;
    }
    a[i] = last;
    return top;
  }
}
