/**
 * Dedup-against benchmark: loading an earlier job's index of N synthetic
 * CDXJ lines (distinct 2xx payloads, ~100-character URLs) into the
 * `earlier` keyspace. Prints the load time, the heap retained per payload
 * (JS heap plus ArrayBuffers, where the fingerprint table lives), the
 * lookup costs, and the time of a resumed load (marker matches, table
 * filled in the background). Asserts nothing.
 * Run: node --expose-gc --import tsx bench/earlier-captures.ts [lines] [sublevel]
 * (default 500,000; without --expose-gc the heap figure is noisy).
 *
 * Figures on the shared 2-CPU bench machine (node 20, loaded), 500k lines:
 *   load              22-25 s (~20k lines/s) through a sublevel; through the
 *                     crawl's keyspace 35-39k lines/s (200k lines, same hour);
 *                     the Map version read 500k in ~7.8 s
 *   retained          17.1 bytes/payload (the 8 MiB table); the Maps kept ~1,090
 *   peak RSS          202 MiB, of it LevelDB and the code; the Maps peaked at 825
 *   lookup, unknown   ~10 µs, no store read
 *   lookup, known     ~55-85 µs (one LevelDB get); the first one of a digest
 *                     also reads the WARC (here a missing file) and writes back
 *   resume            load skipped in ~3 ms, table filled in 2-3.5 s behind
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ClassicLevel } from 'classic-level';
import { Keyspace } from '../src/store/keyspace.js';
import { keyspaceMap } from '../src/store/keyspace-map.js';
import { base32Encode } from '../src/fetch/payload-digest.js';
import { formatCdxjLine } from '../src/index/cdxj.js';
import { loadEarlierCaptures } from '../src/dedup/earlier-load.js';
import { surt } from '../src/url/surt.js';

const gc = (globalThis as { gc?: () => void }).gc;

function memoryMb(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

function digestOf(i: number): string {
  return `sha1:${base32Encode(createHash('sha1').update(`payload ${i}`).digest())}`;
}

async function writeIndex(file: string, count: number): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const fh = await fs.open(file, 'w');
  try {
    let lines: string[] = [];
    for (let i = 0; i < count; i++) {
      const url = `http://host${i % 997}.example.org/section/${i % 31}/article-${i}-${'x'.repeat(50)}.html`;
      lines.push(formatCdxjLine({ key: surt(url), timestamp: '20261129120000', url, mime: 'text/html', status: 200, digest: digestOf(i), length: 5000, offset: i * 5000, filename: `crawl-${i % 10}.warc.gz` }));
      if (lines.length === 10_000 || i === count - 1) {
        await fh.write(lines.join('\n') + '\n');
        lines = [];
      }
    }
  } finally {
    await fh.close();
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 500_000);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-'));
  const job = path.join(root, 'job');
  await fs.mkdir(path.join(job, 'warcs'), { recursive: true });
  await writeIndex(path.join(job, 'indexes', 'index.cdxj'), count);
  const db = new ClassicLevel<Buffer, Buffer>(path.join(root, 'db'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  // As the crawl keeps it: a keyspace of the state database ('sublevel' in argv 3 measures a sublevel instead).
  const sub = () =>
    process.argv[3] === 'sublevel' ? db.sublevel<Buffer, Buffer>('earlier', { keyEncoding: 'buffer', valueEncoding: 'buffer' }) : keyspaceMap(new Keyspace(db, 'earlier'));
  try {
    await db.open();
    // Warm-up on a small job, so the baseline holds the code and the open database.
    const warm = path.join(root, 'warm');
    await fs.mkdir(path.join(warm, 'warcs'), { recursive: true });
    await writeIndex(path.join(warm, 'indexes', 'index.cdxj'), 1000);
    await loadEarlierCaptures([warm], keyspaceMap(new Keyspace(db, 'warm')));
    const before = memoryMb();
    let t = performance.now();
    const captures = await loadEarlierCaptures([job], sub());
    const loadMs = performance.now() - t;
    const after = memoryMb();
    console.log(`load ${count} lines: ${(loadMs / 1000).toFixed(2)} s (${((count / loadMs) * 1000).toFixed(0)} lines/s)`);
    console.log(`retained: ${(((after - before) * 2 ** 20) / count).toFixed(1)} bytes/payload (table ${(captures.memory.bytes / 2 ** 20).toFixed(0)} MiB, ${captures.memory.digests} digests)`);
    console.log(`peak RSS so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

    const probes = 20_000;
    t = performance.now();
    for (let i = 0; i < probes; i++) await captures.lookup(digestOf(count + i));
    console.log(`lookup, unknown: ${(((performance.now() - t) * 1000) / probes).toFixed(1)} µs`);
    t = performance.now();
    for (let i = 0; i < probes; i++) await captures.lookup(digestOf((i * 7919) % count));
    console.log(`lookup, known (first: WARC read fails, date written back): ${(((performance.now() - t) * 1000) / probes).toFixed(1)} µs`);
    t = performance.now();
    for (let i = 0; i < probes; i++) await captures.lookup(digestOf((i * 7919) % count));
    console.log(`lookup, known again: ${(((performance.now() - t) * 1000) / probes).toFixed(1)} µs`);
    await captures.flush();

    t = performance.now();
    const resumed = await loadEarlierCaptures([job], sub());
    const skipMs = performance.now() - t;
    await resumed.loaded();
    console.log(`resume: load skipped in ${skipMs.toFixed(0)} ms, table filled in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  } finally {
    await db.close();
    await fs.rm(root, { recursive: true, force: true });
  }
}

await main();
