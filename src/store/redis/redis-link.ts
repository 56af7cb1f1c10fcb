/**
 * One connection to Redis for one process, as every Redis-backed part of a
 * crawl uses it: commands and Lua scripts (EVALSHA, loaded again when a
 * restarted Redis has forgotten them), and what happens when Redis goes
 * away — the client reconnects with a growing backoff, commands wait for
 * it (node-redis's offline queue), a command cut off by the loss is sent
 * again, and the operator is told once per outage on stderr, and once when
 * Redis is back. Nothing crashes while Redis is gone; the crawl waits.
 * A command cut off may have run all the same (a Redis stopped right after
 * running it never answers), so every command and script sent through here
 * must answer the same when run twice (the seen filter's reservation and the
 * queue store's drain and adoption show how).
 *
 * A Redis Cluster (`redis+cluster://`) is reached through node-redis's
 * cluster client: a command goes to the master of its first key's slot
 * (a script's first KEYS entry; every script keeps to one hash tag, so it
 * runs whole on one master), and a command without a key (TIME) goes to
 * the master of the route key its caller gives. When a master goes away
 * the client looks the topology up again soon (a replica promoted in its
 * place answers from then on); without a replica, the commands for its
 * slots wait as for a single Redis that is down.
 *
 * Client library: node-redis (`redis` on npm), Redis Inc.'s own client,
 * actively released; ioredis is in best-effort maintenance.
 */
import { createHash } from 'node:crypto';
import type { RedisClientType, RedisClusterType } from 'redis';
import { FatalCrawlError } from '../../core/errors.js';
import type { RedisSpec } from './redis-spec.js';

export type RedisArg = string | Buffer | number;

/** A Lua script known by its SHA-1. */
export interface RedisScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

export function redisScript(name: string, source: string): RedisScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

export interface RedisLinkOptions {
  /** Where outage notices go (stderr); null: nowhere. */
  log: NodeJS.WritableStream | null;
  /** Give up on a command after this long without Redis (ms); default never. */
  giveUpAfterMs?: number;
}

/** Backoff between reconnects: 50 ms doubling up to 2 s. */
const MAX_BACKOFF_MS = 2000;

/** How a command reaches Redis: `key` routes it on a cluster (ignored by a single Redis). */
type Send = (key: string | Buffer | undefined, args: (string | Buffer)[], binary: boolean) => Promise<unknown>;

/** A cluster's node answering for its slots again looks the topology up this soon after losing a node (ms). */
const TOPOLOGY_REFRESH_MS = 300;

type RedisModule = typeof import('redis');

export class RedisLink {
  readonly spec: RedisSpec;
  readonly #client: RedisClientType | RedisClusterType;
  readonly #send: Send;
  readonly #log: NodeJS.WritableStream | null;
  readonly #giveUpAfterMs: number;
  #downSince: number | null = null;
  /** Scripts known to be loaded: sha, and on a cluster the hash tag (so the master) they ran on. */
  readonly #loaded = new Set<string>();
  #closed = false;
  /** Commands and scripts sent (each one request; concurrent ones share a round trip, node-redis pipelines them). */
  sent = 0;

  private constructor(spec: RedisSpec, o: RedisLinkOptions, redis: RedisModule) {
    const { createClient, createCluster, RESP_TYPES } = redis;
    this.spec = spec;
    this.#log = o.log;
    this.#giveUpAfterMs = o.giveUpAfterMs ?? Infinity;
    const socket = { connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), MAX_BACKOFF_MS) };
    if (spec.cluster) {
      const cluster = createCluster({
        rootNodes: spec.seeds.map((a) => ({ socket: { host: a.host, port: a.port, connectTimeout: 5000, reconnectStrategy: false as const } })),
        defaults: { socket },
        topologyRefreshOnReconnectionAttemptStrategy: () => TOPOLOGY_REFRESH_MS,
      }) as unknown as RedisClusterType;
      // The same connections answering bulk strings as Buffers (binary members).
      const binary = cluster.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as RedisClusterType;
      this.#client = cluster;
      this.#send = (key, args, asBuffers) => (asBuffers ? binary : cluster).sendCommand(key, false, args);
      cluster.on('node-error', (err: unknown) => this.#down(err));
      cluster.on('node-ready', () => this.#up());
    } else {
      const client = createClient({ url: spec.url, socket }) as RedisClientType;
      const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as RedisClientType;
      this.#client = client;
      this.#send = (_key, args, asBuffers) => (asBuffers ? binary : client).sendCommand(args);
      client.on('ready', () => this.#up());
    }
    this.#client.on('error', (err: unknown) => this.#down(err));
  }

  /**
   * Connect, waiting (with the same backoff, said on stderr) for a Redis that
   * is not there yet, up to `connectWaitMs` (default 60 s): then a fatal
   * error (exit 1).
   */
  static async open(spec: RedisSpec, o: RedisLinkOptions & { connectWaitMs?: number }): Promise<RedisLink> {
    // node-redis is loaded by the crawls and commands that use Redis only: its ~650 files cost every other run ~25 MB and a second of start on a busy machine.
    const link = new RedisLink(spec, o, await import('redis'));
    const waitMs = o.connectWaitMs ?? 60_000;
    let timer: NodeJS.Timeout | null = null;
    let lastError: unknown = null;
    const onError = (err: unknown): void => {
      lastError = err;
    };
    link.#client.on('error', onError);
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new FatalCrawlError('ARCHIVER_REDIS_UNREACHABLE', `${spec.text}: cannot reach Redis (${lastError === null ? 'no answer' : errorText(lastError)}) after ${Math.round(waitMs / 1000)} s`, { cause: lastError })),
        waitMs,
      );
    });
    try {
      await Promise.race([link.#connect(), gaveUp]);
    } catch (err) {
      link.#closed = true;
      link.#client.destroy();
      throw err;
    } finally {
      if (timer !== null) clearTimeout(timer);
      link.#client.off('error', onError);
    }
    link.#up();
    return link;
  }

  /**
   * One command; sent again if the connection broke under it. `binary`: bulk
   * strings come back as Buffers. On a cluster it goes to the master of its
   * first key (`args[1]`) or, for a command without keys, of `routeKey`.
   */
  command<T = unknown>(args: readonly RedisArg[], binary = false, routeKey?: string): Promise<T> {
    const sent = args.map(toArg);
    this.sent++;
    return this.#retrying(() => this.#send(routeKey ?? sent[1], sent, binary) as Promise<T>);
  }

  /** A script by EVALSHA, loading it first when Redis does not know it; `binary`: bulk strings come back as Buffers. */
  eval<T = unknown>(script: RedisScript, keys: readonly RedisArg[], args: readonly RedisArg[], binary = false): Promise<T> {
    this.sent++;
    const k = keys.map(toArg);
    const send = (op: 'EVALSHA' | 'EVAL'): Promise<T> =>
      this.#send(k[0], [op, op === 'EVALSHA' ? script.sha : script.source, String(keys.length), ...k, ...args.map(toArg)], binary) as Promise<T>;
    // The first use on a server is sent whole (EVAL loads it): a NOSCRIPT answer sent again would run
    // after commands issued later, and callers rely on commands taking effect in the order issued.
    const where = `${script.sha}|${this.spec.cluster ? hashTag(k[0]) : ''}`;
    return this.#retrying(async () => {
      if (!this.#loaded.has(where)) {
        const r = await send('EVAL');
        this.#loaded.add(where);
        return r;
      }
      try {
        return await send('EVALSHA');
      } catch (err) {
        if (!errorText(err).includes('NOSCRIPT')) throw err;
        return send('EVAL');
      }
    });
  }

  /** Redis's clock, epoch ms; on a cluster, that of the master holding `routeKey` (the crawl's own keys). */
  async time(routeKey?: string): Promise<number> {
    const [sec, usec] = await this.command<[string, string]>(['TIME'], false, routeKey);
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  }

  /**
   * Every key matching `pattern`, in batches: SCAN on a single Redis, on
   * each master of a cluster in turn.
   */
  async *scan(pattern: string): AsyncGenerator<string[]> {
    for (const client of await this.#masters()) {
      let cursor = '0';
      do {
        this.sent++;
        const [next, found] = (await this.#retrying(() => client.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']))) as [string, string[]];
        cursor = next;
        if (found.length > 0) yield found;
      } while (cursor !== '0');
    }
  }

  /** A command without keys run on every master (INFO, for figures): one reply each. */
  async onEveryMaster<T = unknown>(args: readonly RedisArg[]): Promise<T[]> {
    const clients = await this.#masters();
    this.sent += clients.length;
    return Promise.all(clients.map((client) => this.#retrying(() => client.sendCommand(args.map(toArg)) as Promise<T>)));
  }

  /** The connection of each master: the one Redis, or every master of the cluster. */
  async #masters(): Promise<RedisClientType[]> {
    if (!this.spec.cluster) return [this.#client as RedisClientType];
    const cluster = this.#client as RedisClusterType;
    return Promise.all(cluster.masters.map(async (m) => (await cluster.nodeClient(m)) as unknown as RedisClientType));
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#client.close();
    } catch {
      await this.#client.destroy();
    }
  }

  /** Connect; a cluster whose seed nodes do not answer yet is tried again with the same backoff. */
  async #connect(): Promise<void> {
    if (!this.spec.cluster) {
      await this.#client.connect();
      return;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#client.connect();
        return;
      } catch (err) {
        if (this.#closed) throw err;
        this.#client.emit('error', err);
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** Math.min(attempt, 10), MAX_BACKOFF_MS)));
      }
    }
  }

  async #retrying<T>(send: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (this.#closed || !isConnectionError(err) || Date.now() - started > this.#giveUpAfterMs) {
          if (isConnectionError(err)) throw new FatalCrawlError('ARCHIVER_REDIS_UNREACHABLE', `${this.spec.text}: Redis unreachable (${errorText(err)})`, { cause: err });
          throw err;
        }
        this.#down(err);
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** Math.min(attempt, 10), MAX_BACKOFF_MS)));
      }
    }
  }

  #down(err: unknown): void {
    if (this.#closed || this.#downSince !== null) return;
    this.#downSince = Date.now();
    this.#log?.write(`archiver: Redis at ${this.spec.text} unreachable (${errorText(err)}); retrying with backoff, the crawl waits\n`);
  }

  #up(): void {
    if (this.#downSince === null) return;
    const s = ((Date.now() - this.#downSince) / 1000).toFixed(1);
    this.#downSince = null;
    this.#log?.write(`archiver: Redis at ${this.spec.text} is back after ${s} s\n`);
  }
}

/** The hash tag of a key (what Redis Cluster hashes to a slot): the text inside its first `{…}`, or the key. */
function hashTag(key: string | Buffer | undefined): string {
  const k = key === undefined ? '' : key.toString('latin1');
  const open = k.indexOf('{');
  const close = open < 0 ? -1 : k.indexOf('}', open + 1);
  return close > open + 1 ? k.slice(open + 1, close) : k;
}

function toArg(a: RedisArg): string | Buffer {
  return typeof a === 'number' ? String(a) : a;
}

export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return errorText(err.errors[0]);
  if (err instanceof Error) return (err as NodeJS.ErrnoException).code ?? err.message;
  return String(err);
}

/** A failure of the connection rather than of the command (which Redis would answer the same again). */
function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const name = err.constructor.name;
  if (name === 'ErrorReply' || name === 'SimpleError' || name === 'BlobError') {
    // Redis loading its AOF after a restart answers LOADING: wait as for a lost connection.
    // A cluster without a master for a slot answers CLUSTERDOWN (TRYAGAIN mid-resharding): wait for it too.
    return /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN)/.test(err.message);
  }
  return true;
}

/**
 * A reply of field/value or member/score pairs as one flat list: node-redis
 * answers HGETALL with an object and ZRANGE … WITHSCORES with [member,
 * score] pairs, where a script's reply is already flat.
 */
export function flatPairs<T extends string | Buffer | number>(reply: unknown): T[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) return reply.flatMap((x: unknown) => (Array.isArray(x) ? (x as T[]) : [x as T]));
  return Object.entries(reply as Record<string, T>).flat() as T[];
}
