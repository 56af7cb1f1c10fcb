/**
 * Digest index benchmark: heap per remembered digest, the cost of a lookup
 * (unknown digest: memory only; duplicate: one LevelDB read), and the time
 * to fill the fingerprint table from the store's keys on resume. Digests
 * look like the crawl's (`sha1:` + 32 base32 characters), URLs ~100
 * characters. Prints figures; asserts nothing.
 * Run: node --expose-gc --import tsx bench/digest-index.ts [digests]
 * (default 1,000,000; without --expose-gc the heap figure is noisy).
 *
 * Figures on the shared 2-CPU bench machine (node 20, loaded), a million digests:
 *   memory               16.8 bytes/digest (the 16 MiB table, off the JS heap;
 *                        a Map of whole entries took ~230)
 *   lookup, unknown      ~4 µs (no LevelDB access)
 *   lookup, duplicate    ~77 µs (one LevelDB get, one at a time)
 *   resume               ~7.5 s to fill the table from 1M keys
 *   remember             ~40-55 µs each, most of it abstract-level's batch()
 *                        on the sublevel and GC; the Map version measured ~49
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ClassicLevel } from 'classic-level';
import { base32Encode } from '../src/fetch/payload-digest.js';
import { StoredDigestIndex } from '../src/dedup/digest-index.js';

const gc = (globalThis as { gc?: () => void }).gc;

/** heapUsed plus ArrayBuffers: the fingerprint table's Int32Array lives outside the JS heap. */
function memoryMb(): { heap: number; all: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed / 2 ** 20, all: (m.heapUsed + m.arrayBuffers) / 2 ** 20 };
}

function digestOf(i: number): string {
  return `sha1:${base32Encode(createHash('sha1').update(`payload ${i}`).digest())}`;
}

function urlOf(i: number): string {
  return `http://host${i % 997}.example.org/section/${i % 31}/article-${i}-${'x'.repeat(50)}.html`;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000_000);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-'));
  const db = new ClassicLevel<Buffer, Buffer>(path.join(root, 'db'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    const sub = () => db.sublevel<Buffer, Buffer>('digests', { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const date = new Date(Date.UTC(2026, 10, 29)).toISOString();

    const idx = new StoredDigestIndex(sub());
    await idx.lookup('sha1:WARMUP'); // loads the (empty) store, so the baseline excludes it
    const before = memoryMb();
    let t = performance.now();
    for (let i = 0; i < count; i++) await idx.remember(digestOf(i), urlOf(i), date);
    await idx.flush();
    const rememberMs = performance.now() - t;
    const after = memoryMb();
    const grew = (after.all - before.all) * 2 ** 20;
    const heapGrew = (after.heap - before.heap) * 2 ** 20;
    console.log(`remember ${count}: ${(rememberMs / 1000).toFixed(1)} s (${((rememberMs * 1000) / count).toFixed(1)} µs each, digest and URL building included)`);
    console.log(`heapUsed + arrayBuffers growth: ${(grew / 2 ** 20).toFixed(1)} MiB = ${(grew / count).toFixed(1)} bytes/digest (table ${idx.memory.bytes / 2 ** 20} MiB; heapUsed alone ${(heapGrew / 2 ** 20).toFixed(1)} MiB)`);

    const probes = Math.min(count, 100_000);
    const unknown = Array.from({ length: probes }, (_, i) => digestOf(count + i));
    const known = Array.from({ length: probes }, (_, i) => digestOf(Math.floor((i * count) / probes)));
    t = performance.now();
    for (const d of unknown) if ((await idx.lookup(d)) !== null) throw new Error('false revisit');
    console.log(`lookup, unknown digest: ${(((performance.now() - t) * 1000) / probes).toFixed(2)} µs`);
    t = performance.now();
    for (const d of known) if ((await idx.lookup(d)) === null) throw new Error('missed duplicate');
    console.log(`lookup, duplicate (one LevelDB read): ${(((performance.now() - t) * 1000) / probes).toFixed(2)} µs`);

    const resumed = new StoredDigestIndex(sub());
    t = performance.now();
    await resumed.loaded();
    console.log(`resume: table filled from ${resumed.memory.digests} keys in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  } finally {
    await db.close();
    await fs.rm(root, { recursive: true, force: true });
  }
}

await main();
