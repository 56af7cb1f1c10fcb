/**
 * Micro-benchmark of the per-URL CPU work in front of the seen filter:
 * canonicalizeForSeen, the Heritrix key (writeKey), and both together, on
 * URLs shaped like bench/uniq.ts's link stream (http and https, a third of
 * the hosts with `www.`, a quarter with a query, some with a `#top`
 * fragment). Prints the median ns/URL over several rounds.
 *
 *   node --import tsx bench/keys.ts                 # 100k URLs × 15 rounds
 *   options: --urls 100000, --rounds 15
 *
 * Figures only: nothing here asserts a speed.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { writeKey, KEY_BYTES } from '../src/uniq/heritrix-key.js';
import type { Fp64 } from '../src/fingerprint/rabin.js';
import { makeRandom, pageUrl } from './uniq.js';
import { canonicalizeForSeen } from '../src/url/canonicalize.js';

export interface KeysBenchOpts {
  /** URLs per round. Default 100,000. */
  urls: number;
  /** Timed rounds per phase (after one warm-up round). Default 15. */
  rounds: number;
}


/**
 * URLs as the crawl hands them over: flat strings (as `URL.href` gives),
 * hosts mixed. The round trip through a Buffer flattens the template-literal
 * ropes, which would otherwise be flattened inside the first timed loop.
 */
function makeUrls(n: number): string[] {
  const random = makeRandom(0x5eed);
  const hosts = Math.max(10, Math.round(n / 200));
  return Array.from({ length: n }, () => Buffer.from(pageUrl(random(hosts), random(5000)), 'latin1').toString('latin1'));
}

/** Median of a non-empty list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] as number;
}

/** Runs `round` once to warm up, then `rounds` times timed; ns per URL of each timed round. */
function time(round: () => number, urls: number, rounds: number, sink: { v: number }): number[] {
  sink.v = (sink.v + round()) | 0;
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    sink.v = (sink.v + round()) | 0;
    out.push(Number(process.hrtime.bigint() - t0) / urls);
  }
  return out;
}

export function main(write: (line: string) => void, args: readonly string[]): void {
  const opts = parseArgs(args);
  const urls = makeUrls(opts.urls);
  const canonical = urls.map(canonicalizeForSeen);
  const chars = urls.reduce((n, u) => n + u.length, 0) / urls.length;
  const buf = Buffer.allocUnsafe(KEY_BYTES);
  const scratch: Fp64 = { hi: 0, lo: 0 };
  // Results feed a sink the end prints, so no loop is optimized away.
  const sink = { v: 0 };

  const phases: Array<[string, () => number]> = [
    [
      'canonicalize',
      () => {
        let x = 0;
        for (const u of urls) x += canonicalizeForSeen(u).length;
        return x;
      },
    ],
    [
      'key',
      () => {
        let x = 0;
        for (const c of canonical) {
          writeKey(c, buf, 0, scratch);
          x ^= buf[7] as number;
        }
        return x;
      },
    ],
    [
      'canonicalize+key',
      () => {
        let x = 0;
        for (const u of urls) {
          writeKey(canonicalizeForSeen(u), buf, 0, scratch);
          x ^= buf[7] as number;
        }
        return x;
      },
    ],
  ];

  write(`keys bench: ${opts.urls.toLocaleString('en')} URLs (mean ${chars.toFixed(1)} chars), ${opts.rounds} rounds, node ${process.version}`);
  write('');
  write(`${'phase'.padEnd(18)} ${'median ns/URL'.padStart(14)} ${'min'.padStart(8)} ${'max'.padStart(8)} ${'URLs/s'.padStart(12)}`);
  for (const [label, round] of phases) {
    const ns = time(round, urls.length, opts.rounds, sink);
    const m = median(ns);
    write(
      `${label.padEnd(18)} ${m.toFixed(0).padStart(14)} ${Math.min(...ns).toFixed(0).padStart(8)} ${Math.max(...ns).toFixed(0).padStart(8)} ` +
        `${Math.round(1e9 / m).toLocaleString('en').padStart(12)}`,
    );
  }
  write('');
  write(`(sink ${sink.v}) load average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
}

function parseArgs(args: readonly string[]): KeysBenchOpts {
  const opts: KeysBenchOpts = { urls: 100_000, rounds: 15 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === '--urls' && value !== undefined) (opts.urls = Number(value)), i++;
    else if (arg === '--rounds' && value !== undefined) (opts.rounds = Number(value)), i++;
    else throw new Error(`unknown argument: ${String(arg)}`);
  }
  if (!Number.isInteger(opts.urls) || opts.urls < 1) throw new Error('--urls must be a positive integer');
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error('--rounds must be a positive integer');
  return opts;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main((line) => process.stdout.write(line + '\n'), process.argv.slice(2));
}
