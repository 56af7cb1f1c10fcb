/**
 * A redis-server of the test's own: started on a free loopback port with
 * AOF on (appendfsync everysec, as the README advises), data in a temp
 * directory, stopped and removed after. Tests that need one spread
 * `needs('redis-server')` into their options, so a machine without Redis
 * skips them with what to install.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { needs } from './programs.js';

export const needsRedis = (): { skip?: string } => needs('redis-server');

export interface TestRedis {
  readonly port: number;
  readonly dir: string;
  /** `redis://127.0.0.1:PORT/DB` */
  spec(db?: number): string;
  /** Stop it (SIGTERM: Redis writes its AOF and exits). */
  stop(): Promise<void>;
  /** Start it again on the same port and directory. */
  start(): Promise<void>;
  /** Stop and remove its directory. */
  dispose(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startRedis(): Promise<TestRedis> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await answers(port)) return;
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = null;
    if (c === null || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  };
  await start();
  return {
    port,
    dir,
    spec: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    stop,
    start,
    async dispose() {
      await stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.write('PING\r\n');
    });
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * A redis-server and a link to it for one describe() block: started before
 * its tests, closed and removed after. Each test keeps to a crawl of its own.
 */
export function useSuiteRedis(): { readonly link: RedisLink; readonly redis: TestRedis } {
  let redis: TestRedis | undefined;
  let link: RedisLink | undefined;
  before(async () => {
    redis = await startRedis();
    link = await RedisLink.open(parseRedisSpec(redis.spec()), { log: null });
  });
  after(async () => {
    await link?.close();
    await redis?.dispose();
  });
  return {
    get link() {
      return link!;
    },
    get redis() {
      return redis!;
    },
  };
}
