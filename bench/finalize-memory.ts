/**
 * Memory of the end of a crawl (finalizeJob: index, page list, WACZ) on a
 * synthetic job: N page captures in the capture journal, TEXT_CHARS of text
 * each, every 10th a text-less revisit, one sparse dummy WARC whose size
 * covers every offset. Prints the heap (heapUsed + arrayBuffers) sampled
 * every 20 ms, and after a forced GC every 200 ms ("live"); asserts nothing.
 *
 *   node --expose-gc --import tsx bench/finalize-memory.ts [N=200000] [TEXT_CHARS=2048] [sortBufferBytes]
 *
 * Figures on the 2-CPU bench machine, 200k captures × 2 KB: peak live 74 MiB
 * with the default 64 MiB of sort buffers (41 MiB with 8 MiB); 400k: 75 MiB.
 * Before the page list and index were sorted outside memory: 860 MiB live at
 * 200k, and `Invalid string length` at 400k.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finalizeJob } from '../src/wacz/finalize-job.js';

const n = Number(process.argv[2] ?? 200_000);
const textChars = Number(process.argv[3] ?? 2048);
const sortBufferBytes = process.argv[4] !== undefined ? Number(process.argv[4]) : undefined;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const root = await mkdtemp(path.join(os.tmpdir(), 'archiver-pages-bench-'));
try {
  const job = path.join(root, 'job');
  await mkdir(path.join(job, 'warcs'), { recursive: true });
  await mkdir(path.join(job, 'indexes'), { recursive: true });
  const warc = 'BENCH-00000.warc.gz';
  const recordBytes = 10;
  await writeFile(path.join(job, 'warcs', warc), '');
  await truncate(path.join(job, 'warcs', warc), n * recordBytes);
  const out = createWriteStream(path.join(job, 'indexes', 'captures.jsonl'));
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(textChars / 27)).slice(0, textChars - 8);
  for (let i = 0; i < n; i++) {
    // Every 10th capture a revisit of the one before it, without text (as the crawl writes them).
    const revisit = i % 10 === 9;
    const c = {
      url: `http://h${i % 50}.example/p/${i}.html`, date: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('.000', ''),
      status: 200, mime: 'text/html', digest: `sha1:D${revisit ? i - 1 : i}`, filename: warc, offset: i * recordBytes, length: recordBytes,
      revisit, seed: i === 0, page: true,
      ...(revisit ? {} : { title: `Page ${i}`, text: `${filler}${String(i).padStart(8, '0')}` }),
    };
    if (!out.write(JSON.stringify(c) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end('{"closed":true}\n');
  await new Promise<void>((r) => out.once('finish', () => r()));

  gc();
  const mem = (): number => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
  const base = mem();
  let peak = base;
  let livePeak = base;
  let ticks = 0;
  // Every 20 ms the heap as it is (garbage included); every 10th tick after a full GC (what is live).
  const timer = setInterval(() => {
    if (++ticks % 10 === 0) { gc(); livePeak = Math.max(livePeak, mem()); }
    peak = Math.max(peak, mem());
  }, 20);
  const t0 = Date.now();
  const done = await finalizeJob({ jobDir: job, name: 'bench', software: 'bench', seeds: ['http://h0.example/p/0.html'], ...(sortBufferBytes !== undefined ? { sortBufferBytes } : {}) });
  clearInterval(timer);
  peak = Math.max(peak, mem());
  const mb = (b: number): string => `${(b / 1048576).toFixed(0)} MiB`;
  console.log(`${n} captures x ${textChars} chars: ${done.pages} pages, ${done.captures} index lines, ${((Date.now() - t0) / 1000).toFixed(1)} s; heap+arrayBuffers before ${mb(base)}, peak ${mb(peak)} (+${mb(peak - base)}), peak live (after GC) ${mb(livePeak)}; rss ${mb(process.memoryUsage().rss)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
