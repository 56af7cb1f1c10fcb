/**
 * Frontier benchmark: enqueue and dequeue(+finish) rates with 1M queued URLs
 * over 10k hosts on a real LevelDB, the time to reopen (resume) the frontier
 * half-way, and peak RSS. Prints figures; asserts nothing.
 * Run: node --import tsx bench/frontier.ts [urls] [hosts]
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Directive, type CrawlUri } from '../src/core/crawl-uri.js';
import { LevelQueueStore } from '../src/frontier/level-queue-store.js';
import { WorkQueueFrontier } from '../src/frontier/work-queue-frontier.js';
import { Keyspace } from '../src/store/keyspace.js';

const URLS = Number(process.argv[2] ?? 1_000_000);
const HOSTS = Number(process.argv[3] ?? 10_000);
const BATCH = 500;
const WORKERS = 25;

function uriFor(i: number): CrawlUri {
  const host = i % HOSTS;
  return {
    url: `http://host-${host}.example.test/section/${(i / HOSTS) | 0}/page-${i}.html`,
    hopPath: 'LL',
    via: `http://host-${host}.example.test/`,
    context: 'a/@href',
    seed: false,
    directive: Directive.normal,
    retries: 0,
    redirects: 0,
  };
}

const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);

/**
 * CPU seconds of the main thread alone (LevelDB's own threads excluded), from
 * /proc on Linux; elsewhere the whole process's.
 */
function mainThreadCpuSecs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}
const peakRssMb = (): string => mb(process.resourceUsage().maxRSS * 1024);

const perUri = (cpuSecs: number, uris: number): string => `${((cpuSecs * 1e6) / uris).toFixed(1)} µs/URI`;

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-'));
  const db = new ClassicLevel<Buffer, Buffer>(path.join(dir, 'state'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const init = {
    store: new LevelQueueStore(new Keyspace(db, 'frontier')),
    options: { queueAssignment: 'hostname', elfHashBuckets: 100, elfHashOf: 'url', order: 'breadth-first', precedence: 'fifo', balanceReplenishAmount: 3000, queueTotalBudget: -1 },
    maxConnectionsPerHost: 1,
  } as const;
  let frontier = new WorkQueueFrontier(init);
  const rows: [string, string, string, string, string][] = [];

  let t = performance.now();
  let cpu = mainThreadCpuSecs();
  for (let start = 0; start < URLS; start += BATCH) {
    const batch: CrawlUri[] = [];
    for (let i = start; i < Math.min(URLS, start + BATCH); i++) batch.push(uriFor(i));
    await frontier.schedule(batch);
  }
  let secs = (performance.now() - t) / 1000;
  rows.push(['enqueue', String(URLS), `${Math.round(URLS / secs)}/s`, `${secs.toFixed(1)} s`, perUri(mainThreadCpuSecs() - cpu, URLS)]);
  const heapAfterEnqueue = process.memoryUsage().heapUsed;
  const rssAfterEnqueue = peakRssMb();

  let done = 0;
  const drain = async (until: number): Promise<void> => {
    const start = done;
    const t0 = performance.now();
    const cpu0 = mainThreadCpuSecs();
    const worker = async (): Promise<void> => {
      while (done < until) {
        const claim = await frontier.next();
        if (claim === null) return;
        await frontier.finished(claim, { kind: 'done', delayMs: 0 });
        done++;
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    const s = (performance.now() - t0) / 1000;
    rows.push(['dequeue+finish', String(done - start), `${Math.round((done - start) / s)}/s`, `${s.toFixed(1)} s`, perUri(mainThreadCpuSecs() - cpu0, done - start)]);
  };
  await drain(Math.floor(URLS / 2));
  // Stop half-way and resume: reopen scans every queued URI and every queue's record.
  await frontier.close();
  t = performance.now();
  cpu = mainThreadCpuSecs();
  frontier = await WorkQueueFrontier.open(init);
  secs = (performance.now() - t) / 1000;
  rows.push(['reopen', String(frontier.stats().queued), `${Math.round(frontier.stats().queued / secs)}/s`, `${secs.toFixed(1)} s`, perUri(mainThreadCpuSecs() - cpu, frontier.stats().queued)]);
  await drain(URLS);

  const width = [16, 10, 12, 10, 16];
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(width[i]!)).join(' ');
  console.log(`frontier bench: ${URLS} URLs over ${HOSTS} hosts, batches of ${BATCH}, ${WORKERS} workers, LevelDB in ${dir}`);
  console.log(line(['phase', 'URIs', 'rate', 'time', 'main-thread CPU']));
  for (const row of rows) console.log(line(row));
  console.log(`heap after enqueue ${mb(heapAfterEnqueue)} MB; peak RSS after enqueue ${rssAfterEnqueue} MB; peak RSS overall ${peakRssMb()} MB`);
  await frontier.close();
  await db.close();
  await fs.rm(dir, { recursive: true, force: true });
}

await main();
