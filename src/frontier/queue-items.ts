/**
 * Where a scheduled URI goes: its queue key (the assignment policy,
 * assignment.ts), its sort key inside the queue (the queue order,
 * queue-order.ts, from its discovery ordinal) and its `host:port` for the
 * host gate.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import type { QueueAssignmentPolicy } from './assignment.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { hostPortOf } from '../url/hosts.js';
import type { QueueOrder } from './queue-order.js';
import type { HeadItem } from './work-queue.js';

export class QueueItems {
  readonly #assign: QueueAssignmentPolicy;
  readonly #order: QueueOrder;
  readonly #ordinalOf: (n: number) => number;
  /** URIs numbered so far (the store's count on resume). */
  count = 0;

  /** `ordinalOf`: the discovery ordinal of the `n`th URI numbered here. */
  constructor(assign: QueueAssignmentPolicy, order: QueueOrder, ordinalOf: (n: number) => number) {
    this.#assign = assign;
    this.#order = order;
    this.#ordinalOf = ordinalOf;
  }

  /** The queue key a URI belongs in, and its item (the queue itself is made only when the URI joins it). */
  itemFor(uri: CrawlUri): [queueKey: string, item: HeadItem] {
    let url: URL;
    try {
      url = new URL(uri.url);
    } catch (cause) {
      throw new FrontierError(FrontierErrorCode.badUri, `cannot queue unparsable URL ${JSON.stringify(uri.url)}`, { cause });
    }
    const ordinal = this.#ordinalOf(++this.count);
    const key = this.#order.sortKey(uri, ordinal);
    return [this.#assign.keyFor(url), { key, stored: { o: ordinal, u: uri }, host: hostPortOf(url) }];
  }
}
