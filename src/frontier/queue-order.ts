/**
 * Order inside one work queue. A policy turns a URI into a byte-comparable
 * sort key; the store keeps URIs sorted by `queueKey \0 sortKey`, so the
 * head of a queue is simply its smallest key. Every policy puts the
 * scheduling directive first, so prerequisites (directive 0, robots.txt)
 * always run before what needs them, and ends with the discovery ordinal,
 * which makes keys unique and ties first-come first-served.
 * Best-first serves the highest `CrawlUri.priority` first after the
 * directive (topic-focused crawling scores it, src/focus/): a page's embeds
 * still come before the queue's links, so what is archived replays.
 */
import type { QueueOrderName } from '../config/profile.js';
import { hopCount, priorityOf, type CrawlUri } from '../core/crawl-uri.js';
import { FrontierError, FrontierErrorCode } from './errors.js';

export interface QueueOrder {
  /** Byte-comparable key; `ordinal` is the frontier-wide discovery counter. */
  sortKey(uri: CrawlUri, ordinal: number): Buffer;
}

const MAX_HOPS = 0xffff;

/** directive (1 byte) · hops (2 bytes, possibly inverted) · ordinal (8 bytes), all big-endian. */
function key(directive: number, hopsField: number, ordinal: number): Buffer {
  const b = Buffer.allocUnsafe(11);
  b.writeUInt8(directive, 0);
  b.writeUInt16BE(hopsField, 1);
  b.writeBigUInt64BE(BigInt(ordinal), 3);
  return b;
}

export const breadthFirst: QueueOrder = Object.freeze({
  sortKey: (uri: CrawlUri, ordinal: number): Buffer => key(uri.directive, Math.min(hopCount(uri), MAX_HOPS), ordinal),
});

export const depthFirst: QueueOrder = Object.freeze({
  sortKey: (uri: CrawlUri, ordinal: number): Buffer => key(uri.directive, MAX_HOPS - Math.min(hopCount(uri), MAX_HOPS), ordinal),
});

/**
 * directive (1 byte) · priority, descending (8 bytes) · ordinal (8 bytes).
 * The priority is the IEEE 754 double made byte-comparable (sign bit
 * flipped for positives, every bit for negatives), then inverted so that
 * higher sorts first.
 */
export const bestFirst: QueueOrder = Object.freeze({
  sortKey: (uri: CrawlUri, ordinal: number): Buffer => {
    const b = Buffer.allocUnsafe(17);
    b.writeUInt8(uri.directive, 0);
    // + 0 turns -0 into 0, so that both sort as one.
    b.writeDoubleBE(priorityOf(uri) + 0, 1);
    const negative = (b[1]! & 0x80) !== 0;
    for (let i = 1; i < 9; i++) b[i] = negative ? b[i]! : ~b[i]! & 0xff;
    if (!negative) b[1] = b[1]! ^ 0x80;
    b.writeBigUInt64BE(BigInt(ordinal), 9);
    return b;
  },
});

const ORDERS: Readonly<Record<QueueOrderName, QueueOrder>> = Object.freeze({
  'breadth-first': breadthFirst,
  'depth-first': depthFirst,
  'best-first': bestFirst,
});

export function queueOrderFor(name: QueueOrderName): QueueOrder {
  const order = Object.hasOwn(ORDERS, name) ? ORDERS[name] : undefined;
  if (order === undefined) throw new FrontierError(FrontierErrorCode.unknownPolicy, `unknown queue order "${String(name)}"`);
  return order;
}
