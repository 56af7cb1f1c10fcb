/**
 * A TCP proxy on loopback in front of a redis-server that can lose one
 * answer the way a Redis stopped mid-crawl does: the command reaches Redis
 * and runs, and the connection breaks before its reply gets back. A client
 * that sends the command again then runs it twice; a script that is not
 * safe to run twice shows it. Every other byte goes through unchanged, and
 * connections made after the cut (the client's reconnect) are left alone.
 */
import net from 'node:net';
import { after, before } from 'node:test';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { startRedis, type TestRedis } from './redis-server.js';

export interface ReplyCuttingProxy {
  /** Where clients connect: `redis://127.0.0.1:PORT/DB`. */
  spec(db?: number): string;
  /**
   * The next command whose bytes hold `needle` goes to Redis; once Redis has
   * answered it (so it ran) the client's connection is cut instead of the
   * answer being passed on. Resolves when it was cut.
   */
  cutAfter(needle: string | Buffer): Promise<void>;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

interface Armed {
  needle: Buffer;
  done: () => void;
}

export async function startReplyCuttingProxy(redisPort: number): Promise<ReplyCuttingProxy> {
  let armed: Armed | null = null;
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(redisPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // Set once this connection carried the armed command: Redis's next bytes are its answer (the test keeps one command in flight).
    let cutting: Armed | null = null;
    client.on('data', (chunk: Buffer) => {
      if (armed !== null && cutting === null && chunk.includes(armed.needle)) {
        cutting = armed;
        armed = null;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutting === null) {
        client.write(chunk);
        return;
      }
      const done = cutting.done;
      cuts++;
      client.destroy();
      upstream.destroy();
      done();
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    spec: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    cutAfter(needle) {
      if (armed !== null) throw new Error('a cut is already armed');
      return new Promise<void>((done) => {
        armed = { needle: Buffer.from(needle), done };
      });
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What `redisBehindCuttingProxy()` starts for a suite. */
export interface ProxiedRedis {
  readonly redis: TestRedis;
  readonly proxy: ReplyCuttingProxy;
  /** A link that goes through the proxy. */
  readonly link: RedisLink;
}

/**
 * A redis-server, this proxy in front of it and a RedisLink through the
 * proxy, started before the calling suite's tests and stopped after them
 * (call it inside `describe`). Its fields are set once `before` ran.
 */
export function redisBehindCuttingProxy(): ProxiedRedis {
  const s = {} as { redis: TestRedis; proxy: ReplyCuttingProxy; link: RedisLink };
  before(async () => {
    s.redis = await startRedis();
    s.proxy = await startReplyCuttingProxy(s.redis.port);
    s.link = await RedisLink.open(parseRedisSpec(s.proxy.spec()), { log: null });
  });
  after(async () => {
    await s.link?.close();
    await s.proxy?.close();
    await s.redis?.dispose();
  });
  return s;
}
