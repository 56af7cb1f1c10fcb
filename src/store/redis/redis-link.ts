/**
 * One connection to Redis for one process, as every Redis-backed part of a
 * crawl uses it: commands and Lua scripts (EVALSHA, loaded again when a
 * restarted Redis has forgotten them), and what happens when Redis goes
 * away — the client reconnects with a growing backoff, commands wait for
 * it (node-redis's offline queue), a command cut off by the loss is sent
 * again, and the operator is told once per outage on stderr, and once when
 * Redis is back. Nothing crashes while Redis is gone; the crawl waits.
 *
 * Client library: node-redis (`redis` on npm), Redis Inc.'s own client,
 * actively released; ioredis is in best-effort maintenance.
 */
import { createHash } from 'node:crypto';
import type { RedisClientType } from 'redis';
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

type RedisModule = typeof import('redis');

export class RedisLink {
  readonly spec: RedisSpec;
  readonly #client: RedisClientType;
  /** The same connection answering bulk strings as Buffers (binary members). */
  readonly #binary: RedisClientType;
  readonly #log: NodeJS.WritableStream | null;
  readonly #giveUpAfterMs: number;
  #downSince: number | null = null;
  #closed = false;
  /** Commands and scripts sent (each one request; concurrent ones share a round trip, node-redis pipelines them). */
  sent = 0;

  private constructor(spec: RedisSpec, o: RedisLinkOptions, redis: RedisModule) {
    const { createClient, RESP_TYPES } = redis;
    this.spec = spec;
    this.#log = o.log;
    this.#giveUpAfterMs = o.giveUpAfterMs ?? Infinity;
    this.#client = createClient({
      url: spec.url,
      socket: { connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), MAX_BACKOFF_MS) },
    }) as RedisClientType;
    this.#binary = this.#client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) as unknown as RedisClientType;
    this.#client.on('error', (err: unknown) => this.#down(err));
    this.#client.on('ready', () => this.#up());
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
      await Promise.race([link.#client.connect(), gaveUp]);
    } catch (err) {
      link.#closed = true;
      await link.#client.destroy();
      throw err;
    } finally {
      if (timer !== null) clearTimeout(timer);
      link.#client.off('error', onError);
    }
    link.#up();
    return link;
  }

  /** One command; sent again if the connection broke under it. `binary`: bulk strings come back as Buffers. */
  command<T = unknown>(args: readonly RedisArg[], binary = false): Promise<T> {
    const client = binary ? this.#binary : this.#client;
    this.sent++;
    return this.#retrying(() => client.sendCommand(args.map(toArg)) as Promise<T>);
  }

  /** A script by EVALSHA, loading it first when Redis does not know it; `binary`: bulk strings come back as Buffers. */
  eval<T = unknown>(script: RedisScript, keys: readonly RedisArg[], args: readonly RedisArg[], binary = false): Promise<T> {
    const client = binary ? this.#binary : this.#client;
    this.sent++;
    const send = (op: 'EVALSHA' | 'EVAL'): Promise<T> =>
      client.sendCommand([op, op === 'EVALSHA' ? script.sha : script.source, String(keys.length), ...keys.map(toArg), ...args.map(toArg)]) as Promise<T>;
    return this.#retrying(async () => {
      try {
        return await send('EVALSHA');
      } catch (err) {
        if (!errorText(err).includes('NOSCRIPT')) throw err;
        return send('EVAL');
      }
    });
  }

  /** Redis's clock, epoch ms. */
  async time(): Promise<number> {
    const [sec, usec] = await this.command<[string, string]>(['TIME']);
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
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
    return err.message.startsWith('LOADING') || err.message.startsWith('BUSY');
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
