/**
 * The `redis://HOST:PORT/DB` form a profile's `store`, `--store` and the
 * status/stop commands take: parsed once here, so every reader agrees on
 * what the default port and database are and what is refused.
 */
import { UsageError } from '../../core/errors.js';

export interface RedisSpec {
  host: string;
  port: number;
  db: number;
  /** The spec as given, for messages. */
  text: string;
  /** The URL the client connects to. */
  url: string;
}

export function isRedisSpec(spec: string): boolean {
  return spec.startsWith('redis://');
}

export function parseRedisSpec(spec: string): RedisSpec {
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
  return { host, port, db, text: spec, url: `redis://${u.host}/${db}` };
}
