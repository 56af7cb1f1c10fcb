/**
 * The frontier's queue keys in sorted order, for paging through queues (a
 * web console, the crawl handle). Keys are only ever added; new ones wait
 * unsorted until the next read sorts and merges them in, so creating a
 * queue costs a push and a read of n keys after k new ones costs
 * O(k log k + n) — no sort of every key per page. A key is deleted only
 * when a frontier shares its queues with other processes and hands one on.
 */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class SortedKeys {
  #sorted: string[] = [];
  #added: string[] = [];

  add(key: string): void {
    this.#added.push(key);
  }

  /** Remove a key (a queue handed to another process). */
  delete(key: string): void {
    this.#merge();
    const at = this.#sorted.indexOf(key);
    if (at >= 0) this.#sorted.splice(at, 1);
  }

  /** Keys in order, from the first one after `after` (from the start when undefined). */
  *after(after: string | undefined): Generator<string> {
    this.#merge();
    const keys = this.#sorted;
    let lo = 0;
    if (after !== undefined) {
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid]! <= after) lo = mid + 1;
        else hi = mid;
      }
    }
    for (let i = lo; i < keys.length; i++) yield keys[i]!;
  }

  #merge(): void {
    if (this.#added.length === 0) return;
    const added = this.#added.sort(compare);
    const old = this.#sorted;
    const out = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length) out[k++] = old[i]! <= added[j]! ? old[i++]! : added[j++]!;
    while (i < old.length) out[k++] = old[i++]!;
    while (j < added.length) out[k++] = added[j++]!;
    this.#sorted = out;
    this.#added = [];
  }
}
