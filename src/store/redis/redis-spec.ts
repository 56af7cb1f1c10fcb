/**
 * The address forms a profile's `store`, `--store` and the status/stop
 * commands take, parsed once here so every reader agrees on the default
 * port and database and on what is refused:
 * - `redis://HOST:PORT/DB` — one Redis;
 * - `redis+cluster://HOST:PORT[,HOST:PORT…]` — a Redis Cluster, found from
 *   any one of the seed nodes given (a cluster has database 0 only).
 */
import { UsageError } from '../../core/errors.js';

export interface RedisNodeAddress {
  host: string;
  port: number;
}

export interface RedisSpec {
  /** One Redis, or a cluster found from `seeds`. */
  cluster: boolean;
  /** The first address given (the only one of a single Redis). */
  host: string;
  port: number;
  db: number;
  /** Every address given: a cluster's seed nodes. */
  seeds: RedisNodeAddress[];
  /** The spec as given, for messages. */
  text: string;
  /** The URL the client connects to (the first seed's, for a cluster). */
  url: string;
}

const CLUSTER = 'redis+cluster://';

export function isRedisSpec(spec: string): boolean {
  return spec.startsWith('redis://') || spec.startsWith(CLUSTER);
}

export function parseRedisSpec(spec: string): RedisSpec {
  if (spec.startsWith(CLUSTER)) return parseClusterSpec(spec);
  let u: URL;
  try {
    u = new URL(spec);
  } catch {
    throw new UsageError(`${JSON.stringify(spec)} is not a redis://HOST:PORT/DB address`);
  }
  if (u.protocol !== 'redis:' || u.hostname === '') throw new UsageError(`${JSON.stringify(spec)} is not a redis://HOST:PORT/DB address`);
  const path = u.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : Number(path);
  if (!Number.isInteger(db) || db < 0 || db > 15 || !/^\d*$/.test(path)) throw new UsageError(`${JSON.stringify(spec)}: the database must be a number 0-15`);
  const port = u.port === '' ? 6379 : Number(u.port);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { cluster: false, host, port, db, seeds: [{ host, port }], text: spec, url: `redis://${u.host}/${db}` };
}

function parseClusterSpec(spec: string): RedisSpec {
  const rest = spec.slice(CLUSTER.length).replace(/\/$/, '');
  const bad = (): UsageError => new UsageError(`${JSON.stringify(spec)} is not a redis+cluster://HOST:PORT[,HOST:PORT…] address`);
  if (rest === '' || rest.includes('/')) throw bad();
  const seeds = rest.split(',').map((part) => {
    const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(part);
    const port = m?.[2] === undefined ? 6379 : Number(m[2]);
    if (m === null || port < 1 || port > 65535) throw bad();
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const first = seeds[0]!;
  const hostPart = first.host.includes(':') ? `[${first.host}]` : first.host;
  return { cluster: true, host: first.host, port: first.port, db: 0, seeds, text: spec, url: `redis://${hostPart}:${first.port}` };
}
