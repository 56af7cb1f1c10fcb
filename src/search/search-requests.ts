/**
 * What the search worker thread is asked (search-worker.ts), and the
 * handler that answers, used on the worker and, when there is none, in the
 * calling thread (search-index.ts). Each holds its own open stores, by
 * index directory; a request names its directory.
 */
import { SearchStore } from './search-store.js';
import type { SearchOptions, SearchPage, SearchResponse } from './search-types.js';

export type SearchRequest =
  | { op: 'add'; dir: string; pages: SearchPage[] }
  | { op: 'search'; dir: string; query: string; opts: SearchOptions }
  | { op: 'count'; dir: string }
  | { op: 'getMeta'; dir: string; key: string }
  | { op: 'setMeta'; dir: string; key: string; value: string }
  | { op: 'close'; dir: string };

/** Pages added (add), the response (search), a count, a meta value, or nothing. */
export type SearchReply = number | SearchResponse | string | null;

export class SearchRequestHandler {
  readonly #stores = new Map<string, SearchStore>();

  handle(req: SearchRequest): SearchReply {
    if (req.op === 'close') {
      this.#stores.get(req.dir)?.close();
      this.#stores.delete(req.dir);
      return null;
    }
    const store = this.#store(req.dir);
    switch (req.op) {
      case 'add':
        return store.addBatch(req.pages);
      case 'search':
        return store.search(req.query, req.opts);
      case 'count':
        return store.count();
      case 'getMeta':
        return store.getMeta(req.key);
      case 'setMeta':
        store.setMeta(req.key, req.value);
        return null;
    }
  }

  closeAll(): void {
    for (const s of this.#stores.values()) s.close();
    this.#stores.clear();
  }

  #store(dir: string): SearchStore {
    let s = this.#stores.get(dir);
    if (s === undefined) {
      s = SearchStore.open(dir);
      this.#stores.set(dir, s);
    }
    return s;
  }
}
