/**
 * The names of one crawl's keys in Redis. Every key starts `arc:` and
 * carries a hash tag (`{crawl}` or `{crawl:shard}`), so that Redis Cluster
 * puts all keys a script touches in one slot: crawl-wide keys (nodes, run
 * flags, records) share the `{crawl}` slot; the frontier's queues and
 * leases and the seen filter's buckets are spread over SHARDS tags by host
 * (a queue key's or a URL's host fingerprint), so a cluster shards the
 * crawl by host. Several crawls live in one database side by side.
 */
import { std24 } from '../../fingerprint/rabin.js';

/** Shards of a crawl's per-host keys (a fixed number: changing it would move every key). */
export const SHARDS = 16;

export class CrawlKeys {
  readonly crawl: string;
  readonly #tag: string;

  constructor(crawl: string) {
    this.crawl = crawl;
    this.#tag = `arc:{${crawl}}`;
  }

  /** The crawl's registry entry (profile hash, run flags, finished…): a hash. */
  get meta(): string {
    return `${this.#tag}:meta`;
  }
  /** node id → last heartbeat (Redis ms): a sorted set. */
  get nodes(): string {
    return `${this.#tag}:nodes`;
  }
  /** node id → its latest incarnation (`node.n`), written when it joins: a hash. */
  get incarnations(): string {
    return `${this.#tag}:incs`;
  }
  /** node id → JSON figures (pages, bytes, rates, in flight): a hash. */
  get nodeStats(): string {
    return `${this.#tag}:nodestats`;
  }
  /** Incarnations (`node.n`) that have run their seeds into the queues: a set. */
  get seeded(): string {
    return `${this.#tag}:seeded`;
  }
  /** Nodes that ended their run on a finished crawl: a set. */
  get doneNodes(): string {
    return `${this.#tag}:done`;
  }
  /** A named record store (robots, health, job): a hash. */
  records(name: string): string {
    return `${this.#tag}:rec:${name}`;
  }
  /** A fingerprinted map (digests, earlier): a hash. */
  map(name: string): string {
    return `${this.#tag}:map:${name}`;
  }

  /** The hash tag of one shard. */
  shardTag(shard: number): string {
    return `arc:{${this.crawl}:${shard}}`;
  }
  /** Queue key → its URIs (member = sort key ‖ record), by score 0 and lexical member order. */
  queue(shard: number, queueKey: string): string {
    return `${this.shardTag(shard)}:q:${queueKey}`;
  }
}

/** Every key of a crawl matches this (for deleting a crawl, and for finding crawls in a database). */
export function crawlKeyPattern(crawl: string): string[] {
  const esc = crawl.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
  return [`arc:{${esc}}:*`, `arc:{${esc}:*}:*`];
}

/** The shard of a queue key or host name. */
export function shardOf(name: string): number {
  const fp = std24.fpInto(name, { hi: 0, lo: 0 }, 0, name.length);
  return (fp.hi >>> 8) % SHARDS;
}
