/**
 * The end of a crawl, after its workers stopped: close every part, package
 * the job (CDXJ index and WACZ over every run's WARCs), write the reports,
 * close the state. It goes on through failures — a full disk fails several
 * steps at once — and throws the first one, in the words an operator can act
 * on (a full disk says so, with how to resume).
 *
 * A node of a crawl of several processes leaves the crawl instead; only
 * the last node to leave a finished one packages it — over every node's
 * WARCs, with reports summing every node's crawl.log, and
 * `reports/nodes.txt|json` — and notes in the store that it did.
 *
 * Packaging's modules (index, WACZ, page text) are loaded here, at the end:
 * a crawl's first request does not wait for them.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Profile } from '../config/profile.js';
import type { NodeFigures } from '../backends/crawl-coordination.js';
import { sumNodeLogs, writeNodesReport } from './node-reports.js';
import type { CrawlStatus } from './crawl-status.js';
import { SOFTWARE, type CrawlParts } from './crawl-parts.js';
import { asFatal } from './crawl-failure.js';
import { formatSummary, summarize, writeReports, type CrawlSummary, type NodeShare } from './reports.js';

export interface CloseInputs {
  profile: Profile;
  parts: CrawlParts;
  /** The failure that stopped the crawl, if one did. */
  fatal: unknown;
  endReason: string;
  /** The crawl's status as of now (read after the parts are closed). */
  status: () => CrawlStatus;
  /** The job's crawl time, all runs. */
  crawlTimeMs: () => number;
}

export async function closeCrawl(c: CloseInputs): Promise<{ summary: CrawlSummary; text: string }> {
  const p = c.parts;
  const failures: unknown[] = c.fatal === null ? [] : [c.fatal];
  const attempt = async <T>(step: () => Promise<T>): Promise<T | null> => {
    try {
      return await step();
    } catch (err) {
      failures.push(err);
      return null;
    }
  };
  if (p.browser !== null) await attempt(() => p.browser!.close());
  const runWarcFiles = (await attempt(() => p.writer.close())) ?? [];
  await attempt(() => p.journal.close());
  // The page list and index lines made as the journal was written (each null when set aside: the end makes it).
  const live = p.live === null ? null : await attempt(() => p.live!.finish());
  await attempt(() => p.digestIndex.flush());
  // Exact dates read during the crawl are written back.
  if (p.earlier) await attempt(() => p.earlier!.flush());
  await attempt(() => p.crawlLog.close());
  await attempt(() => p.fetcher.close());
  await attempt(() => p.pages.close());
  await attempt(() => p.healthJournal.flush());
  await attempt(() => p.job.saveCrawlTimeMs(c.crawlTimeMs()));
  const shared = p.backend.shared;
  const seeds = [...c.profile.seeds, ...p.addedSeeds];
  let stats = p.stats;
  let packages = !shared;
  let nodes: NodeFigures[] | null = null;
  if (shared) {
    // The frontier's last writes land before the node leaves; its queues then go to the others.
    await attempt(() => p.frontier.close());
    const finished = failures.length === 0 && c.endReason === 'FINISHED';
    packages = (await attempt(() => p.backend.coordination.leave(finished))) === true;
    if (packages) {
      stats = (await attempt(() => sumNodeLogs(p.dirs.root, seeds, p.stats.startedAt))) ?? p.stats;
      nodes = await attempt(() => p.backend.coordination.nodes());
    }
  }
  // The CDXJ index and the WACZ cover the whole job (every run of a resumed one; every node's WARCs);
  // without a package (output.wacz false), the index alone.
  const finalize = {
    jobDir: p.dirs.root,
    name: c.profile.name,
    software: SOFTWARE,
    seeds,
    pageText: c.profile.output.pageText,
    ...(live?.livePages ? { livePages: live.livePages } : {}),
    ...(live?.liveIndex ? { liveIndex: live.liveIndex } : {}),
  };
  const packaged =
    packages && failures.length === 0 && (runWarcFiles.length > 0 || p.resuming || shared)
      ? await attempt(async () => {
          const job = await import('../wacz/finalize-job.js');
          return c.profile.output.wacz ? job.finalizeJob(finalize) : { ...(await job.indexJob(finalize)), wacz: null };
        })
      : null;
  if (p.live !== null) await attempt(() => p.live!.discard());
  if (shared && packaged !== null) {
    // Loaded here only: SQLite is no part of a crawl of one process.
    await attempt(async () => (await import('../search/build-search-index.js')).buildJobSearchIndex(p.dirs.root));
    await attempt(() => p.backend.coordination.packaged());
  }
  const warcFiles = (await attempt(() => jobWarcFiles(p.dirs.warcs))) ?? runWarcFiles;
  const own = c.status();
  let status = stats === p.stats ? own : { ...own, uris: stats.succeeded, pages: stats.pages, bytes: stats.bytes, errors: stats.failed, disregarded: stats.disregarded, retries: stats.retries };
  const share = shared ? nodeShare(p.backend.coordination.node ?? '', packages, p.backend.joined.finished, own.uris === 0 && c.endReason === 'FINISHED') : undefined;
  // Started on a finished crawl: its time is the crawl's (its longest node's), not this short run's.
  if (share?.covers === 'already' && nodes !== null) status = { ...status, ...crawlTime(nodes, status.uris, status.bytes) };
  const endReason = failures.length > 0 && c.endReason === 'FINISHED' ? 'ABORTED_FATAL' : c.endReason;
  const summary = summarize({ ...status, endReason }, stats.byHost.size, {
    warcFiles,
    runWarcFiles,
    warcDir: p.dirs.warcs,
    jobDir: p.dirs.root,
    cdxj: packaged?.cdxj ?? null,
    wacz: packaged?.wacz ?? null,
    closedHosts: p.health.closed(),
    // A node that does not package the crawl knows only its own captures: whether the seeds were reached is the packager's to say.
    seeds: shared && !packages ? [] : [...stats.seeds.values()],
    dedupAgainst: p.earlier?.jobs.map((j) => j.dir) ?? [],
  });
  if (share !== undefined) summary.node = share;
  if (p.browser !== null) summary.browser = { ...p.browser.counts };
  const overrides = { describeHost: (host: string) => p.overrides.describeHost(host), budgets: p.budgets.report() };
  if (packages) await attempt(() => writeReports(p.dirs.reports, stats, summary, p.frontier.stats(), p.frontier.queues(), overrides));
  if (nodes !== null) await attempt(() => writeNodesReport(p.dirs.reports, nodes));
  // A node of a shared crawl reports on its own crawl.log (focus-report-NODE.*).
  if (p.focus !== null) await attempt(() => p.focus!.close(p.dirs.crawlLog, p.dirs.reports));
  await attempt(() => p.frontier.close());
  await attempt(() => p.seen.close());
  await attempt(() => p.refusedSeen.close());
  await attempt(() => p.backend.close());
  if (failures.length > 0) throw asFatal(failures[0], p.dirs.root);
  return { summary, text: formatSummary(summary) };
}

function nodeShare(id: string, packages: boolean, alreadyFinished: boolean, idle: boolean): NodeShare {
  return {
    id,
    covers: alreadyFinished && packages ? 'already' : packages ? 'crawl' : 'share',
    idleBecause: idle && !alreadyFinished ? 'every host with URIs was held by another node (one node fetches a host at a time: a crawl has work for at most as many nodes as it has hosts)' : null,
  };
}

/** A crawl's time and rates from its nodes' last figures: the longest node's crawl time. */
function crawlTime(nodes: readonly NodeFigures[], uris: number, bytes: number): { elapsedSec: number; runElapsedSec: number; urisPerSec: number; kbPerSec: number } {
  const sec = Math.max(0, ...nodes.map((n) => n.elapsedMs)) / 1000;
  const rate = (x: number): number => (sec > 0 ? Math.round((x / sec) * 100) / 100 : 0);
  return { elapsedSec: sec, runElapsedSec: sec, urisPerSec: rate(uris), kbPerSec: rate(bytes / 1024) };
}

/** Every finished WARC file of the job, by name (runs write names that sort in time). */
async function jobWarcFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.warc.gz') || n.endsWith('.warc')).sort().map((n) => path.join(dir, n));
}
