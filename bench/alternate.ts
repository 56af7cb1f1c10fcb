/**
 * Builds of archiver (and GNU wget, when asked) crawling one profile in
 * alternation, round after round, in the same minutes: what a change did
 * to a crawl's CPU, wall and peak RSS. This machine's speed drifts by tens
 * of percent within an hour (notes/performance-history.md), more than most
 * changes move a crawl, so each build is compared with the first round by
 * round: its paired change (the median over rounds, and in how many rounds
 * it was lower), beside each one's medians. Figures only.
 *
 *   node dist/bench/alternate.js --profile site.json --build /tmp/before --build . --rounds 8
 *   node dist/bench/alternate.js --profile site.json --build /tmp/before --build . --wget http://127.0.0.1:8081/
 *   node dist/bench/alternate.js --profile site.json --profile site-without-text.json --build . --rounds 5
 *
 * A build is a folder with bin/archiver and its compiled dist (a worktree
 * after `npm run build`, or a copy of one with node_modules linked). The
 * crawls run in a temporary folder; the profile's `output.dir` (relative to
 * that folder unless absolute) is removed before each crawl. wget runs as the
 * site bench runs it (real-sites.ts), in a fresh folder each round. With
 * several profiles each build crawls each of them in every round (what an
 * option costs: the same build, a profile with it and one without), and the
 * first build's first profile is what the others are paired against.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { median, timed } from './crawl.js';
import { wgetMirrorArgs } from './real-sites.js';

const USAGE = 'usage: node dist/bench/alternate.js --profile PROFILE.json [--profile PROFILE.json …] --build DIR [--build DIR …] [--wget URL] [--rounds N]';

/** One crawl's figures. */
export interface RunFigures {
  cpuSecs: number;
  wallSecs: number;
  peakRssMB: number;
}

/** `other` against `base`, round by round (the two lists in round order): the median and mean change in %, and the rounds where it was lower. */
export function pairedChange(base: readonly number[], other: readonly number[]): { medianPct: number; meanPct: number; lower: number; rounds: number } {
  const rounds = Math.min(base.length, other.length);
  const pct: number[] = [];
  for (let i = 0; i < rounds; i++) pct.push(((other[i]! - base[i]!) / base[i]!) * 100);
  return { medianPct: median(pct), meanPct: pct.reduce((a, b) => a + b, 0) / (rounds || NaN), lower: pct.filter((p) => p < 0).length, rounds };
}

const signed = (pct: number): string => `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)}%`;

/** The table: each tool's medians and ranges, and each build's paired change against the first. */
export function alternationTable(runs: ReadonlyMap<string, readonly RunFigures[]>, first: string): string[] {
  const lines = ['| tool | rounds | CPU s, median [range] | wall s, median | peak RSS MB, median | CPU against the first, paired | wall against the first, paired |', '|---|---|---|---|---|---|---|'];
  const base = runs.get(first) ?? [];
  for (const [tool, rs] of runs) {
    const cpu = rs.map((r) => r.cpuSecs);
    const against = (pick: (r: RunFigures) => number): string => {
      if (tool === first || tool === 'wget') return '–';
      const c = pairedChange(base.map(pick), rs.map(pick));
      return `${signed(c.medianPct)} (mean ${signed(c.meanPct)}, ${c.lower} of ${c.rounds} lower)`;
    };
    lines.push(
      `| ${tool} | ${rs.length} | ${median(cpu).toFixed(3)} [${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}] | ${median(rs.map((r) => r.wallSecs)).toFixed(3)} | ` +
        `${median(rs.map((r) => r.peakRssMB)).toFixed(1)} | ${against((r) => r.cpuSecs)} | ${against((r) => r.wallSecs)} |`,
    );
  }
  return lines;
}

/** One crawl of each round: a build with a profile, and the name its figures go under. */
export interface CrawlUnit {
  label: string;
  build: string;
  profile: string;
}

/**
 * Every build with every profile, in the order they run in a round (builds
 * outer). A unit is named by what tells it apart: its build when there is one
 * profile, its profile's file name when there is one build, both otherwise.
 */
export function crawlUnits(builds: readonly string[], profiles: readonly string[]): CrawlUnit[] {
  const units: CrawlUnit[] = [];
  for (const build of builds) {
    for (const profile of profiles) {
      const label = profiles.length === 1 ? build : builds.length === 1 ? path.basename(profile) : `${build} · ${path.basename(profile)}`;
      units.push({ label, build, profile });
    }
  }
  return units;
}

async function main(): Promise<void> {
  const { values } = benchArgs({ options: { profile: { type: 'string', multiple: true, default: [] }, build: { type: 'string', multiple: true, default: [] }, wget: { type: 'string' }, rounds: { type: 'string', default: '6' } } }, { usage: USAGE });
  const rounds = Number(values.rounds);
  if (values.profile.length === 0 || values.build.length === 0 || !Number.isInteger(rounds) || rounds < 1) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const units = crawlUnits(
    values.build.map((b) => path.resolve(b)),
    values.profile.map((p) => path.resolve(p)),
  );
  const work = await mkdtemp(path.join(os.tmpdir(), 'archiver-alternate-'));
  // Where each profile's crawl writes: archiver resolves a relative output.dir against its working folder (`work` here).
  const outDirs = new Map<string, string>();
  for (const { profile } of units) {
    const spec = JSON.parse(await readFile(profile, 'utf8')) as { name?: string; output?: { dir?: string } };
    outDirs.set(profile, path.resolve(work, spec.output?.dir ?? path.join('jobs', spec.name ?? '')));
  }
  const runs = new Map<string, RunFigures[]>([...units.map((u) => [u.label, []] as [string, RunFigures[]]), ...(values.wget ? [['wget', []] as [string, RunFigures[]]] : [])]);
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const unit of units) {
        await rm(outDirs.get(unit.profile)!, { recursive: true, force: true });
        const t = await timed(path.join(unit.build, 'bin', 'archiver'), ['run', unit.profile, '--quiet'], work);
        console.log(`round ${round} ${unit.label}: ${t.cpuSecs.toFixed(2)} s CPU (${t.systemSecs.toFixed(2)} s system), ${t.wallSecs.toFixed(2)} s wall, ${t.peakRssMB.toFixed(0)} MB, exit ${t.exitCode}`);
        runs.get(unit.label)!.push(t);
      }
      if (values.wget !== undefined) {
        const dir = await mkdtemp(path.join(work, 'wget-'));
        const t = await timed('/usr/bin/wget', wgetMirrorArgs(values.wget), dir);
        console.log(`round ${round} wget: ${t.cpuSecs.toFixed(2)} s CPU (${t.systemSecs.toFixed(2)} s system), ${t.wallSecs.toFixed(2)} s wall, ${t.peakRssMB.toFixed(0)} MB, exit ${t.exitCode}`);
        runs.get('wget')!.push(t);
        // Its mirror tree stays until the end: files deleted shortly before make the next tree's slow to create (real-sites.ts, runSites).
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
    for (const dir of outDirs.values()) await rm(dir, { recursive: true, force: true });
  }
  console.log(alternationTable(runs, units[0]!.label).join('\n'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
