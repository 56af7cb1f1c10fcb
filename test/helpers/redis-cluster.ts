/**
 * A Redis Cluster of the test's own, from Debian's redis-server: N masters
 * (and optionally one replica each) on loopback ports, each with
 * `--cluster-enabled yes` and AOF on, joined by `redis-cli --cluster
 * create`, ready when every node says `cluster_state:ok`. A node can be
 * killed (SIGKILL) and started again on its port and directory, for tests
 * of a master going away. Tests that need it spread
 * `needs('redis-server', 'redis-cli')` into their options.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before } from 'node:test';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { needs } from './programs.js';

const run = promisify(execFile);

export const needsRedisCluster = (): { skip?: string } => {
  const server = needs('redis-server');
  return server.skip !== undefined ? server : needs('redis-cli', 'redis-tools');
};

export interface TestRedisCluster {
  /** Every node's port, masters first (as created). */
  readonly ports: number[];
  /** `redis+cluster://127.0.0.1:PORT` of the first node (any one is enough for the client). */
  spec(): string;
  /** SIGKILL node i (no AOF rewrite, no goodbye). */
  kill(i: number): Promise<void>;
  /** SIGTERM node i (it writes its AOF and exits). */
  stop(i: number): Promise<void>;
  /** Start node i again on its port and directory. */
  start(i: number): Promise<void>;
  /** Wait until every running node says cluster_state:ok. */
  ready(timeoutMs?: number): Promise<void>;
  /** The port of the node now master of the slot `key` hashes to (asked of node `via`). */
  masterOf(key: string, via?: number): Promise<number>;
  dispose(): Promise<void>;
}

/** A node that exited before it answered (a port taken meanwhile, a bad option): its log's last lines. */
class NodeExited extends Error {}

/**
 * The lowest port the kernel hands out to outgoing connections and to
 * listen(0) (/proc's ip_local_port_range; 32768 when it cannot be read).
 */
async function ephemeralStart(): Promise<number> {
  const text = await fs.readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  const lo = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(lo) && lo > 0 ? lo : 32768;
}

/**
 * A loopback port free together with its cluster-bus port (+10000), both
 * below the ephemeral range when there is room, so that no other test's
 * outgoing connection or listen(0) can take either between this check and
 * redis-server's bind.
 */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  const top = (await ephemeralStart()) - 10000;
  const [lo, span] = top > 12000 ? [10000, top - 10000] : [20000, 25000];
  for (;;) {
    const port = lo + Math.floor(Math.random() * span);
    // Nor the bus port of a node chosen before, nor a node port for a bus port (they start later).
    if (taken.has(port) || taken.has(port + 10000) || taken.has(port - 10000) || !(await isFree(port)) || !(await isFree(port + 10000))) continue;
    taken.add(port);
    return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

export async function startRedisCluster(o: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {}): Promise<TestRedisCluster> {
  const masters = o.masters ?? 3;
  const replicas = o.replicas ?? 0;
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) ports.push(await freeClusterPort(taken));
  const children: (ChildProcess | null)[] = ports.map(() => null);

  const start = async (i: number): Promise<void> => {
    const port = ports[i]!;
    const dir = path.join(root, String(port));
    await fs.mkdir(dir, { recursive: true });
    const log = path.join(dir, 'redis.log');
    // cluster-node-timeout: how soon a silent master is failed over (or its slots reported down).
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--logfile', log, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec',
        '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(o.nodeTimeoutMs ?? 2000)],
      { stdio: 'ignore' },
    );
    children[i] = child;
    const deadline = Date.now() + 10_000;
    while (!(await pings(port))) {
      if (child.exitCode !== null) {
        children[i] = null;
        const tail = (await fs.readFile(log, 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' | ');
        throw new NodeExited(`redis-server on port ${port} exited (${child.exitCode}): ${tail}`);
      }
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** A node's first start: on a port another process took meanwhile, once more on a fresh port (bounded). */
  const first = async (i: number): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await start(i);
      } catch (err) {
        if (!(err instanceof NodeExited) || attempt === 3) throw err;
        ports[i] = await freeClusterPort(taken);
      }
    }
  };
  const end = async (i: number, signal: NodeJS.Signals): Promise<void> => {
    const c = children[i];
    children[i] = null;
    if (c === null || c === undefined || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill(signal);
    });
  };
  const kill = (i: number): Promise<void> => end(i, 'SIGKILL');
  const ready = async (timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(ports.map((p, i) => (children[i] === null ? 'ok' : cli(p, 'CLUSTER', 'INFO').catch(() => ''))));
      if (states.every((s) => s === 'ok' || /cluster_state:ok/.test(s))) return;
      if (Date.now() > deadline) throw new Error(`cluster on ports ${ports.join(',')} not ready`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  try {
    for (let i = 0; i < ports.length; i++) await first(i);
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 30_000 });
    await ready();
    // Every node must know every other (create's last step is the meet; a few seconds at most).
    const deadline = Date.now() + 20_000;
    while (!(await Promise.all(ports.map((p) => cli(p, 'CLUSTER', 'NODES')))).every((n) => n.trim().split('\n').length === ports.length && !/handshake|noaddr/.test(n))) {
      if (Date.now() > deadline) throw new Error('cluster nodes did not meet');
      await new Promise((r) => setTimeout(r, 100));
    }
    // A replica takes over its master only with data of its own: wait for every replica's first sync.
    while ((await Promise.all(ports.map((p) => cli(p, 'INFO', 'replication')))).some((r) => /role:slave/.test(r) && !/master_link_status:up/.test(r))) {
      if (Date.now() > deadline) throw new Error('replicas did not sync');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    for (let i = 0; i < ports.length; i++) await kill(i);
    await fs.rm(root, { recursive: true, force: true });
    throw err;
  }

  return {
    ports,
    spec: () => `redis+cluster://127.0.0.1:${ports[0]}`,
    kill,
    stop: (i) => end(i, 'SIGTERM'),
    start,
    ready,
    async masterOf(key, via = 0) {
      const slot = Number((await cli(ports[via]!, 'CLUSTER', 'KEYSLOT', key)).trim());
      for (const line of (await cli(ports[via]!, 'CLUSTER', 'NODES')).trim().split('\n')) {
        const f = line.split(' ');
        if (!f[2]!.includes('master') || f[2]!.includes('fail')) continue;
        for (const range of f.slice(8)) {
          const [lo, hi] = range.split('-').map(Number);
          if (slot >= lo! && slot <= (hi ?? lo)!) return Number(f[1]!.split(/[:@]/)[1]);
        }
      }
      throw new Error(`no master for slot ${slot}`);
    },
    async dispose() {
      for (let i = 0; i < ports.length; i++) await kill(i);
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * A 3-master cluster and a link to it for one describe() block: started
 * before its tests, stopped and removed after.
 */
export function useSuiteCluster(): { readonly link: RedisLink; readonly cluster: TestRedisCluster } {
  let cluster: TestRedisCluster | undefined;
  let link: RedisLink | undefined;
  before(async () => {
    cluster = await startRedisCluster();
    link = await RedisLink.open(parseRedisSpec(cluster.spec()), { log: null });
  });
  after(async () => {
    await link?.close();
    await cluster?.dispose();
  });
  return {
    get link() {
      return link!;
    },
    get cluster() {
      return cluster!;
    },
  };
}
