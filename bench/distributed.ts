/**
 * A crawl of several processes on Redis (`archiver run … --store redis://…
 * --node nX`): pages/s with 1, 2 and 3 nodes against the fixture web at 0 ms
 * and at 20 ms server latency (delays 0, one connection per host), and what
 * Redis pays: commands and Lua-internal calls per archived page, Redis CPU
 * per page; then Redis memory and CPU per queued URL and per seen URL,
 * measured on the frontier's queue store and the seen filter directly.
 *
 *   node dist/bench/distributed.js [--hosts 20] [--pages 100] [--latency-ms 0,20] [--nodes 1,2,3]
 *     [--workers 25] [--queued 200000] [--seen 1000000]
 *
 * Starts its own redis-server (appendonly yes, appendfsync everysec) on a
 * free port. Figures only.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './bench-args.js';
import { packageRoot } from '../src/core/package-root.js';
import { Directive } from '../src/core/crawl-uri.js';
import { FixtureWeb } from '../src/demo/fixture-web.js';
import { RedisQueueStore } from '../src/frontier/redis-queue-store.js';
import { breadthFirst } from '../src/frontier/queue-order.js';
import { CrawlKeys } from '../src/store/redis/crawl-keys.js';
import { RedisLink } from '../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../src/store/redis/redis-spec.js';
import { RedisUriUniqFilter } from '../src/uniq/redis-uniq-filter.js';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { startRedis } from '../test/helpers/redis-server.js';

const USAGE = 'usage: node dist/bench/distributed.js [--hosts 20] [--pages 100] [--latency-ms 0,20] [--nodes 1,2,3] [--workers N] [--queued N] [--seen N] [--cluster]';

interface RedisFigures {
  commands: number;
  calls: number;
  cpuSec: number;
  memory: number;
}

/** Summed over every master (the one Redis, or each master of a cluster). */
async function redisFigures(link: RedisLink): Promise<RedisFigures> {
  const sum: RedisFigures = { commands: 0, calls: 0, cpuSec: 0, memory: 0 };
  for (const info of await link.onEveryMaster<string>(['INFO', 'all'])) {
    const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    for (const m of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) sum.calls += Number(m[1]);
    sum.commands += field('total_commands_processed');
    sum.cpuSec += field('used_cpu_user') + field('used_cpu_sys');
    sum.memory += field('used_memory');
  }
  return sum;
}

async function crawlOnce(o: { spec: string; web: FixtureWeb; nodes: number; workers: number; tmp: string; name: string; link: RedisLink }) {
  const dir = path.join(o.tmp, o.name);
  const file = path.join(o.tmp, `${o.name}.json`);
  await fs.writeFile(
    file,
    JSON.stringify({
      name: o.name,
      seeds: o.web.seeds,
      userAgent: 'archiver-bench/0.1 (+https://example.org/bench)',
      politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 1 },
      limits: { fetchTimeoutMs: 10000, maxRetries: 1, retryDelayMs: 10 },
      workers: o.workers,
      output: { dir },
    }),
  );
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const before = await redisFigures(o.link);
  const started = performance.now();
  const codes = await Promise.all(
    Array.from({ length: o.nodes }, (_, i) =>
      new Promise<number | null>((resolve) => {
        const p = spawn(process.execPath, [bin, 'run', file, '--store', o.spec, '--node', `n${i + 1}`, '--quiet'], { stdio: ['ignore', 'ignore', 'inherit'] });
        p.on('exit', (code) => resolve(code));
      }),
    ),
  );
  const wall = (performance.now() - started) / 1000;
  const after = await redisFigures(o.link);
  const report = JSON.parse(await fs.readFile(path.join(dir, 'reports', 'crawl-report.json'), 'utf8')) as { uris: number };
  // Requests the nodes sent (their last figures in Redis): node-redis pipelines concurrent ones, so round trips are fewer.
  const stats = Object.values((await o.link.command(['HGETALL', new CrawlKeys(o.name).nodeStats])) as Record<string, string>);
  const requests = stats.reduce((t, j) => t + Number((JSON.parse(j) as { redisRequests?: number }).redisRequests ?? 0), 0);
  return { codes, wall, pages: report.uris, requests, commands: after.commands - before.commands, cpuSec: after.cpuSec - before.cpuSec };
}

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      hosts: { type: 'string', default: '20' },
      pages: { type: 'string', default: '100' },
      'latency-ms': { type: 'string', default: '0,20' },
      nodes: { type: 'string', default: '1,2,3' },
      workers: { type: 'string', default: '25' },
      queued: { type: 'string', default: '200000' },
      seen: { type: 'string', default: '1000000' },
      // A 3-master Redis Cluster on loopback instead of one Redis (figures summed over the masters).
      cluster: { type: 'boolean', default: false },
    },
  }, { usage: USAGE });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-nodes-'));
  const redis = values.cluster ? await startRedisCluster() : await startRedis();
  const link = await RedisLink.open(parseRedisSpec(redis.spec()), { log: null });
  let run = 0;
  try {
    const version = (await link.onEveryMaster<string>(['INFO', 'server']))[0]!.match(/redis_version:(\S+)/)?.[1];
    console.log(`machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; Redis ${version}${values.cluster ? ', a 3-master cluster' : ''}`);
    for (const latencyMs of values['latency-ms'].split(',').map(Number)) {
      const web = await FixtureWeb.start({ hosts: Number(values.hosts), pagesPerHost: Number(values.pages), port: 0, latencyMs });
      try {
        for (const nodes of values.nodes.split(',').map(Number)) {
          const r = await crawlOnce({ spec: redis.spec(), web, nodes, workers: Number(values.workers), tmp, name: `bench${++run}`, link });
          console.log(
            `latency ${latencyMs} ms, ${nodes} node(s): ${r.pages} pages in ${r.wall.toFixed(1)} s = ${(r.pages / r.wall).toFixed(0)} pages/s` +
              ` (exit ${r.codes.join(',')}); Redis per page: ${(r.requests / r.pages).toFixed(1)} requests from the nodes (commands or scripts; round trips at most), ${(r.commands / r.pages).toFixed(1)} commands run (those inside scripts included),` +
              ` ${((r.cpuSec * 1e6) / r.pages).toFixed(0)} µs CPU per page; load average ${os.loadavg()[0]!.toFixed(1)}`,
          );
        }
      } finally {
        await web.close();
      }
    }
    // Memory and CPU per queued URL: URIs added to the shared queue store, 1000 hosts, in batches of 50.
    const queued = Number(values.queued);
    const keysQ = new CrawlKeys('bench-queue');
    const store = new RedisQueueStore({ link, keys: keysQ, node: 'b', token: 'b.1', leaseMs: 60_000, room: () => 1e9, ordinalBase: 0 });
    const q0 = await redisFigures(link);
    for (let i = 0; i < queued; i += 50) {
      const entries = Array.from({ length: Math.min(50, queued - i) }, (_, j) => {
        const n = i + j;
        const u = { url: `http://host${n % 1000}.example/section/${n}/page.html`, hopPath: 'LL', via: `http://host${n % 1000}.example/`, context: '', seed: false, directive: Directive.normal, retries: 0, redirects: 0 };
        return { queueKey: `host${n % 1000}.example`, sortKey: breadthFirst.sortKey(u, n), value: { o: n, u } };
      });
      await store.addShared(entries);
    }
    const q1 = await redisFigures(link);
    console.log(`queued URLs: ${queued} over 1000 hosts: ${((q1.memory - q0.memory) / queued).toFixed(0)} bytes and ${(((q1.cpuSec - q0.cpuSec) * 1e6) / queued).toFixed(1)} µs Redis CPU per queued URL`);
    // Memory and CPU per seen URL: the seen filter, batches of 50 (the links of a page).
    const seenN = Number(values.seen);
    const filter = new RedisUriUniqFilter({ link, keys: new CrawlKeys('bench-seen'), name: 'seen', token: 'b.1', memoryKeys: 1 });
    const s0 = await redisFigures(link);
    for (let i = 0; i < seenN; i += 50) await filter.addMany(Array.from({ length: Math.min(50, seenN - i) }, (_, j) => `http://host${(i + j) % 5000}.example/a/${i + j}`));
    const s1 = await redisFigures(link);
    console.log(`seen URLs: ${seenN}: ${((s1.memory - s0.memory) / seenN).toFixed(1)} bytes and ${(((s1.cpuSec - s0.cpuSec) * 1e6) / seenN).toFixed(1)} µs Redis CPU per seen URL`);
  } finally {
    await link.close();
    await redis.dispose();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

await main();
