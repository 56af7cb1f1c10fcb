/**
 * Order inside one work queue. A policy turns a URI into a byte-comparable
 * sort key; the store keeps URIs sorted by `queueKey \0 sortKey`, so the
 * head of a queue is simply its smallest key. Every policy puts the
 * scheduling directive first, so prerequisites (directive 0, robots.txt)
 * always run before what needs them, and ends with the discovery ordinal,
 * which makes keys unique and ties first-come first-served.
 * Best-first (topic-focused) ordering will be one more entry in the table.
 */
import type { QueueOrderName } from '../config/profile.js';
import { hopCount, type CrawlUri } from '../core/crawl-uri.js';
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

const ORDERS: Readonly<Record<QueueOrderName, QueueOrder>> = Object.freeze({
  'breadth-first': breadthFirst,
  'depth-first': depthFirst,
});

export function queueOrderFor(name: QueueOrderName): QueueOrder {
  const order = Object.hasOwn(ORDERS, name) ? ORDERS[name] : undefined;
  if (order === undefined) throw new FrontierError(FrontierErrorCode.unknownPolicy, `unknown queue order "${String(name)}"`);
  return order;
}
