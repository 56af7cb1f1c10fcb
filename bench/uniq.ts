/**
 * Benchmark of the already-seen filter as the crawl uses it: check-and-insert
 * in batches of ~50 URLs (one page's outlinks: mostly its own host, some
 * repeats of links seen before, a few other hosts), until the filter holds
 * the target number of keys. Prints URLs checked per second, the same for a
 * recheck of already-seen URLs once full, the bytes on disk per key, and the
 * same workload against an in-memory Set<string> of canonical URLs.
 *
 *   node --import tsx bench/uniq.ts                  # 1M keys (add --expose-gc for an exact Set heap figure)
 *   node --import tsx bench/uniq.ts --keys 10000000  # or ARCHIVER_BENCH_KEYS=10000000
 *   options: --batch 50, --inflight 1 (batches outstanding, like workers),
 *            --dir <where to put the LevelDB>, --no-set / --set
 *
 * Figures only: nothing here asserts a speed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LevelUriUniqFilter } from '../src/uniq/level-uniq-filter.js';
import { writeKey } from '../src/uniq/heritrix-key.js';
import { canonicalizeForSeen } from '../src/url/canonicalize.js';

export interface UniqBenchOpts {
  /** Keys the filter holds at the end of the fill phase. Default 1,000,000. */
  keys: number;
  /** URLs per addMany call. Default 50. */
  batchUrls: number;
  /** Parent directory for the LevelDB; default the OS temp dir. */
  dir: string;
  /** Also run the in-memory Set<string> baseline. Default on up to 3M keys. */
  withSet: boolean;
  /** Batches outstanding at once, like crawl workers. Default 1 (one after another). */
  inflight: number;
}

interface PhaseResult {
  label: string;
  urls: number;
  /** Wall-clock seconds spent checking. */
  seconds: number;
  /** CPU time of the whole process (main thread and libuv pool) while checking. */
  cpuUs: number;
  extra: string;
}

/** Deterministic xorshift32, so runs are comparable. */
export function makeRandom(seed: number): (n: number) => number {
  let x = seed | 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const SECTIONS = ['news', 'blog', 'products', 'about', 'docs/api', 'archive/2019', 'forum/thread', 'static/img'];
const TLDS = ['org', 'com', 'net', 'de', 'fr', 'org.uk', 'edu'];

/** The URL of page `page` on host `host`: realistic shapes and lengths (50–120 chars). */
export function pageUrl(host: number, page: number): string {
  const scheme = host % 5 === 0 ? 'http' : 'https';
  const www = host % 3 === 0 ? 'www.' : '';
  const name = `${www}site${host.toString(36)}.example.${TLDS[host % TLDS.length] as string}`;
  const section = SECTIONS[(page * 7 + host) % SECTIONS.length] as string;
  const query = page % 4 === 0 ? `?id=${page}&ref=nav` : page % 4 === 1 ? `?p=${page % 97}` : '';
  return `${scheme}://${name}/${section}/item-${page}.html${query}${page % 11 === 0 ? '#top' : ''}`;
}

/**
 * One page's outlinks: 80% to its own host, 40% of those re-linking pages
 * already discovered (menus, pagination), the rest to a few other hosts.
 */
class LinkStream {
  readonly #random = makeRandom(0x5eed);
  readonly #pagesOfHost: Uint32Array;
  constructor(hosts: number) {
    this.#pagesOfHost = new Uint32Array(hosts);
  }
  nextBatch(size: number): string[] {
    const r = this.#random;
    const hosts = this.#pagesOfHost.length;
    const home = r(hosts);
    const out: string[] = [];
    for (let i = 0; i < size; i++) {
      const host = r(5) === 0 ? r(hosts) : home;
      const known = this.#pagesOfHost[host] as number;
      const repeat = known > 0 && r(10) < 4;
      if (!repeat) this.#pagesOfHost[host] = known + 1;
      const page = repeat ? r(known) : known;
      // Flattened now, outside the timings: a crawl's URLs come flat from the URL
      // parser, while template literals make ropes the first scan would flatten.
      const url = pageUrl(host, page);
      url.charCodeAt(url.length - 1);
      out.push(url);
    }
    return out;
  }
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? await dirBytes(p) : (await fs.stat(p)).size;
  }
  return total;
}

/** Batches prepared ahead so URL generation stays out of the timings. */
const CHUNK_BATCHES = 2000;

/**
 * Run chunks of batches through `check` with `inflight` batches outstanding
 * (like that many crawl workers), until `done()`; wall and CPU time cover
 * only the checking.
 */
async function drive(
  stream: LinkStream,
  opts: UniqBenchOpts,
  check: (batch: string[]) => Promise<boolean[]>,
  done: () => boolean,
): Promise<{ urls: number; seconds: number; cpuUs: number }> {
  let urls = 0;
  let ns = 0n;
  let cpuUs = 0;
  while (!done()) {
    const chunk = Array.from({ length: CHUNK_BATCHES }, () => stream.nextBatch(opts.batchUrls));
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < chunk.length && !done()) {
        const batch = chunk[next++] as string[];
        await check(batch);
        urls += batch.length;
      }
    };
    await Promise.all(Array.from({ length: opts.inflight }, worker));
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    ns += process.hrtime.bigint() - t0;
  }
  return { urls, seconds: Number(ns) / 1e9, cpuUs };
}

async function benchLevel(opts: UniqBenchOpts, hosts: number): Promise<PhaseResult[]> {
  const dir = await fs.mkdtemp(path.join(opts.dir, 'archiver-bench-uniq-'));
  try {
    const filter = new LevelUriUniqFilter(dir);
    let stored = 0;
    const fillRun = await drive(
      new LinkStream(hosts),
      opts,
      async (batch) => {
        const answer = await filter.addMany(batch);
        for (const isNew of answer) if (isNew) stored++;
        return answer;
      },
      () => stored >= opts.keys,
    );
    // The filter writes behind its callers: the fill is over when the store has every key.
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    await filter.count();
    const c = process.cpuUsage(c0);
    fillRun.seconds += Number(process.hrtime.bigint() - t0) / 1e9;
    fillRun.cpuUs += c.user + c.system;
    const fill: PhaseResult = { label: 'LevelDB fill', ...fillRun, extra: `${stored} new` };

    // Recheck: the same link stream again, so every URL is already stored.
    let rechecked = 0;
    const recheckUrls = Math.min(1_000_000, fillRun.urls);
    const recheckRun = await drive(
      new LinkStream(hosts),
      opts,
      async (batch) => {
        rechecked += batch.length;
        return filter.addMany(batch);
      },
      () => rechecked >= recheckUrls,
    );
    const recheck: PhaseResult = { label: 'LevelDB recheck', ...recheckRun, extra: 'all seen' };
    const count = await filter.count();
    const memory = filter.memory;
    await filter.close();
    const bytes = await dirBytes(dir);
    fill.extra += `, ${(bytes / count).toFixed(1)} B/key on disk (${(bytes / 2 ** 20).toFixed(0)} MiB)`;
    fill.extra += `, ${(memory.bytes / count).toFixed(1)} B/key in memory (${(memory.bytes / 2 ** 20).toFixed(0)} MiB table, ${memory.complete ? 'complete' : 'partial'})`;
    return [fill, recheck];
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function benchSet(opts: UniqBenchOpts, hosts: number): Promise<PhaseResult> {
  // With --expose-gc the heap figure is exact; without it, garbage inflates it.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const seen = new Set<string>();
  const heapBefore = process.memoryUsage().heapUsed;
  const run = await drive(
    new LinkStream(hosts),
    { ...opts, inflight: 1 },
    async (batch) =>
      batch.map((url) => {
        const c = canonicalizeForSeen(url);
        if (seen.has(c)) return false;
        seen.add(c);
        return true;
      }),
    () => seen.size >= opts.keys,
  );
  gc?.();
  const heap = process.memoryUsage().heapUsed - heapBefore;
  const approx = gc === undefined ? '≤' : '';
  return { label: 'Set<string>', ...run, extra: `${seen.size} new, ${approx}${(heap / seen.size).toFixed(0)} B/key of heap` };
}

/** The CPU part alone: canonicalize + Heritrix key, no store. */
async function benchKeys(opts: UniqBenchOpts, hosts: number): Promise<PhaseResult> {
  const buf = Buffer.allocUnsafe(8);
  let n = 0;
  const run = await drive(
    new LinkStream(hosts),
    { ...opts, inflight: 1 },
    async (batch) => {
      for (const url of batch) writeKey(canonicalizeForSeen(url), buf);
      n += batch.length;
      return [];
    },
    () => n >= 1_000_000,
  );
  return { label: 'canonicalize+key', ...run, extra: 'no store' };
}

export async function main(write: (line: string) => void, args: readonly string[]): Promise<void> {
  const opts = parseArgs(args);
  const hosts = Math.max(10, Math.round(opts.keys / 200));
  write(
    `uniq bench: ${opts.keys.toLocaleString('en')} keys, batches of ${opts.batchUrls}, ${opts.inflight} in flight, ` +
      `${hosts} hosts, node ${process.version}`,
  );
  const rows = [await benchKeys(opts, hosts), ...(await benchLevel(opts, hosts))];
  if (opts.withSet) rows.push(await benchSet(opts, hosts));
  write('');
  write(`${'phase'.padEnd(18)} ${'URLs'.padStart(11)} ${'seconds'.padStart(8)} ${'URLs/s'.padStart(10)} ${'CPU µs/URL'.padStart(11)}  notes`);
  for (const r of rows) {
    const rate = Math.round(r.urls / r.seconds).toLocaleString('en');
    const cpu = (r.cpuUs / r.urls).toFixed(2);
    write(`${r.label.padEnd(18)} ${r.urls.toLocaleString('en').padStart(11)} ${r.seconds.toFixed(2).padStart(8)} ${rate.padStart(10)} ${cpu.padStart(11)}  ${r.extra}`);
  }
  write('');
  write(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs (other processes inflate wall times)`);
}

function parseArgs(args: readonly string[]): UniqBenchOpts {
  const envKeys = Number(process.env['ARCHIVER_BENCH_KEYS'] ?? '');
  const opts: UniqBenchOpts = {
    keys: Number.isInteger(envKeys) && envKeys > 0 ? envKeys : 1_000_000,
    batchUrls: 50,
    dir: os.tmpdir(),
    withSet: true,
    inflight: 1,
  };
  let setExplicit = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === '--keys' && value !== undefined) (opts.keys = Number(value)), i++;
    else if (arg === '--batch' && value !== undefined) (opts.batchUrls = Number(value)), i++;
    else if (arg === '--dir' && value !== undefined) (opts.dir = value), i++;
    else if (arg === '--inflight' && value !== undefined) (opts.inflight = Number(value)), i++;
    else if (arg === '--no-set') (opts.withSet = false), (setExplicit = true);
    else if (arg === '--set') (opts.withSet = true), (setExplicit = true);
    else throw new Error(`unknown argument: ${String(arg)}`);
  }
  if (!Number.isInteger(opts.keys) || opts.keys < 1) throw new Error('--keys must be a positive integer');
  if (!Number.isInteger(opts.batchUrls) || opts.batchUrls < 1) throw new Error('--batch must be a positive integer');
  if (!Number.isInteger(opts.inflight) || opts.inflight < 1) throw new Error('--inflight must be a positive integer');
  // A Set of 10M URL strings needs well over 1 GB of heap; only on request.
  if (!setExplicit && opts.keys > 3_000_000) opts.withSet = false;
  return opts;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main((line) => process.stdout.write(line + '\n'), process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
