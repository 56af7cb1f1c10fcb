/**
 * The queue and host tables of a node's own console in a crawl of several
 * processes (issue 27: "any node's console … shows the whole crawl: …
 * queues and hosts across nodes"; before, a node's console listed only its
 * own). The node's own rows keep their live detail (errors, delays,
 * in-process state, bytes); every other row is what the store holds
 * (store-tables.ts), read through the inspector of the store's backend row
 * — a row that is shared and inspectable; a node of any other store has no
 * others to show. One row per queue key and per host: the node's own wins.
 * The inspector is opened on first use and closed with the job.
 */
import { backendRow } from '../backends/state-backends.js';
import type { StoreInspector } from '../backends/state-backend.js';
import type { ApiHost, ApiQueue } from './api-shapes.js';
import { conflict } from './console-errors.js';
import { storeHosts, storeQueues } from './store-tables.js';

/** Where a node keeps its crawl's state, as Crawl.store says. */
export interface NodeStore {
  spec: string;
  /** The crawl's name in the store. */
  crawl: string;
  /** This node's id; null: a crawl of one process. */
  node: string | null;
}

export class NodeWideTables {
  /** This node's id: its own rows carry it. */
  readonly node: string;
  readonly #crawl: string;
  readonly #open: () => Promise<StoreInspector>;
  readonly #now: () => number;
  #store: Promise<StoreInspector> | null = null;
  #closed = false;

  constructor(opts: { node: string; crawl: string; open: () => Promise<StoreInspector>; now?: () => number }) {
    this.node = opts.node;
    this.#crawl = opts.crawl;
    this.#open = opts.open;
    this.#now = opts.now ?? Date.now;
  }

  /** The tables of a node whose store's row is shared and inspectable; null for any other crawl. */
  static of(store: NodeStore): NodeWideTables | null {
    if (store.node === null) return null;
    const row = backendRow(store.spec);
    const inspect = row.inspect;
    if (!row.shared || inspect === null) return null;
    return new NodeWideTables({ node: store.node, crawl: store.crawl, open: () => inspect(store.spec) });
  }

  /** This node's queues (live) and every other queue the store holds, sorted by key. */
  async queues(own: readonly ApiQueue[]): Promise<ApiQueue[]> {
    const mine = own.map((q) => ({ ...q, node: this.node }));
    const keys = new Set(mine.map((q) => q.key));
    const others = (await storeQueues(await this.#inspector(), this.#crawl, this.#now())).filter((q) => !keys.has(q.key));
    return [...mine, ...others].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The hosts this node fetched (live) and every other host the store knows, in no particular order. */
  async hosts(own: readonly ApiHost[]): Promise<ApiHost[]> {
    const mine = own.map((h) => ({ ...h, node: this.node }));
    const names = new Set(mine.map((h) => h.host));
    const others = (await storeHosts(await this.#inspector(), this.#crawl)).filter((h) => !names.has(h.host));
    return [...mine, ...others];
  }

  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#store;
    this.#store = null;
    const store = await opening?.catch(() => null);
    await store?.close();
  }

  /** The store's inspector, opened once (again after a failed open). */
  #inspector(): Promise<StoreInspector> {
    if (this.#closed) throw conflict('the crawl is over on this node');
    if (this.#store === null) {
      const opening = this.#open();
      this.#store = opening;
      opening.catch(() => {
        if (this.#store === opening) this.#store = null;
      });
    }
    return this.#store;
  }
}
