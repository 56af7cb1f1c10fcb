/**
 * A look at the crawls in one Redis database from outside (`archiver
 * status`, `archiver stop`): which crawls it holds, each node's figures as
 * its heartbeats said, the queues over all shards, and the crawl's flags.
 * Joins no crawl and writes nothing (`archiver stop` sets its flag through
 * the crawl's coordination, redis-backend.ts).
 */
import { UsageError } from '../core/errors.js';
import { crawlQueueFigures, type CrawlQueueFigures } from '../frontier/redis-queue-store.js';
import type { NodeFigures } from './crawl-coordination.js';
import { CrawlKeys } from '../store/redis/crawl-keys.js';
import { NODE_TTL_MS } from './redis-coordination.js';
import { flatPairs, type RedisLink } from '../store/redis/redis-link.js';

export interface CrawlReport {
  crawl: string;
  /** When every node found nothing left (ISO), or null. */
  finished: string | null;
  /** `node time` of the last package written, or null. */
  packaged: string | null;
  paused: boolean;
  stopped: boolean;
  nodes: (NodeFigures & { queues?: Record<string, number> })[];
  queues: CrawlQueueFigures & { byState: Record<string, number> };
  totals: { pages: number; bytes: number; inFlight: number; pagesPerSec: number; liveNodes: number };
}

/** The names of the crawls a database holds. */
export async function crawlsIn(link: RedisLink): Promise<string[]> {
  const names = new Set<string>();
  for await (const found of link.scan('arc:{*}:meta')) {
    for (const key of found) {
      const m = /^arc:\{(.+)\}:meta$/.exec(key);
      if (m && !m[1]!.includes(':')) names.add(m[1]!);
    }
  }
  return [...names].sort();
}

/** The crawl `wanted` names, or the database's only one; a usage error lists the names otherwise. */
export async function pickCrawl(link: RedisLink, wanted: string | undefined): Promise<string> {
  const names = await crawlsIn(link);
  if (wanted !== undefined) {
    if (!names.includes(wanted)) throw new UsageError(`${link.spec.text} holds no crawl ${JSON.stringify(wanted)}${names.length > 0 ? ` (it holds: ${names.join(', ')})` : ''}`);
    return wanted;
  }
  if (names.length === 1) return names[0]!;
  if (names.length === 0) throw new UsageError(`${link.spec.text} holds no crawl`);
  throw new UsageError(`${link.spec.text} holds several crawls; name one with --crawl: ${names.join(', ')}`);
}

export async function crawlReport(link: RedisLink, crawl: string): Promise<CrawlReport> {
  const keys = new CrawlKeys(crawl);
  const [now, metaReply, beatsReply, statsReply] = await Promise.all([
    link.time(keys.meta),
    link.command(['HGETALL', keys.meta]),
    link.command(['ZRANGE', keys.nodes, '0', '-1', 'WITHSCORES']),
    link.command(['HGETALL', keys.nodeStats]),
  ]);
  const meta = new Map<string, string>();
  const m = flatPairs<string>(metaReply).map(String);
  for (let i = 0; i < m.length; i += 2) meta.set(m[i]!, m[i + 1]!);
  const beats = new Map<string, number>();
  const b = flatPairs<string>(beatsReply).map(String);
  for (let i = 0; i < b.length; i += 2) beats.set(b[i]!, Number(b[i + 1]));
  const nodes: CrawlReport['nodes'] = [];
  const s = flatPairs<string>(statsReply).map(String);
  for (let i = 0; i < s.length; i += 2) {
    const f = JSON.parse(s[i + 1]!) as CrawlReport['nodes'][number];
    const beat = beats.get(f.node) ?? 0;
    nodes.push({ ...f, alive: beat > now - NODE_TTL_MS, lastHeartbeat: Math.max(beat, f.lastHeartbeat) });
  }
  nodes.sort((x, y) => (x.node < y.node ? -1 : 1));
  const byState: Record<string, number> = {};
  for (const n of nodes) if (n.alive) for (const [k, v] of Object.entries(n.queues ?? {})) byState[k] = (byState[k] ?? 0) + v;
  const live = nodes.filter((n) => n.alive);
  const queues = await crawlQueueFigures(link, keys, [...beats].filter(([, at]) => at > now - NODE_TTL_MS).map(([node]) => node));
  const finished = meta.get('finished');
  return {
    crawl,
    finished: finished ? new Date(Number(finished)).toISOString() : null,
    packaged: meta.get('packaged') ?? null,
    paused: meta.get('paused') === '1',
    stopped: meta.get('stopped') === '1',
    nodes,
    queues: { ...queues, byState },
    totals: {
      pages: nodes.reduce((t, n) => t + n.pages, 0),
      bytes: nodes.reduce((t, n) => t + n.bytes, 0),
      inFlight: live.reduce((t, n) => t + n.inFlight, 0),
      pagesPerSec: Math.round(live.reduce((t, n) => t + n.pagesPerSec, 0) * 100) / 100,
      liveNodes: live.length,
    },
  };
}

/** How many nodes of the crawl are alive (their heartbeat is recent). */
export async function liveNodeCount(link: RedisLink, crawl: string): Promise<number> {
  const keys = new CrawlKeys(crawl);
  const now = await link.time(keys.meta);
  return (await link.command<string[]>(['ZRANGE', keys.nodes, String(now - NODE_TTL_MS), '+inf', 'BYSCORE'])).length;
}
