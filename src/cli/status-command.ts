/**
 * `archiver status redis://HOST:PORT/DB [--crawl NAME] [--json]`: a crawl of
 * several processes seen from outside — its nodes (alive, last heartbeat,
 * pages, pages/s, in flight), its queues by state, totals and rates.
 */
import { inspectStore } from '../backends/state-backends.js';
import type { CrawlReport } from '../backends/redis-inspect.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, storeArgument } from './parse-options.js';
import { ExitCode } from './exit-codes.js';

export const statusHelp = `archiver status redis://HOST:PORT/DB [options]

Shows a crawl run by several processes on Redis (archiver run <profile>
--store redis://… or redis+cluster://…): each node (alive or not, last heartbeat, pages, pages/s,
URIs in flight), the queues by state (as the live nodes count them, and the
queues waiting for a node), totals and rates.

Options:
  --crawl NAME   the crawl (the profile's name); may be left out when the
                 database holds one crawl
  --store SPEC   the store, instead of the first argument (as run and
                 serve name it)
  --json         one JSON document instead of text
  -h, --help     this text
`;

export async function statusMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { crawl: { type: 'string' }, json: { type: 'boolean' }, store: { type: 'string' } });
  if (values.help) {
    io.stdout.write(statusHelp);
    return ExitCode.ok;
  }
  const store = await inspectStore(storeArgument('status', values.store, positionals));
  try {
    const report = await store.report(await store.pick(values.crawl));
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return ExitCode.ok;
  } finally {
    await store.close();
  }
}

export function formatStatus(r: CrawlReport): string {
  const state = r.finished !== null ? `finished ${r.finished}${r.packaged ? `, packaged by ${r.packaged}` : ''}` : r.stopped ? 'stopping' : r.paused ? 'paused' : r.totals.liveNodes > 0 ? 'running' : 'no live node';
  const width = Math.max(4, ...r.nodes.map((n) => n.node.length));
  const lines = [
    `crawl ${r.crawl}: ${state}`,
    `nodes ${r.totals.liveNodes} alive of ${r.nodes.length}`,
    `  ${'node'.padEnd(width)}  alive  last heartbeat             pages   pages/s  in flight`,
    ...r.nodes.map((n) => `  ${n.node.padEnd(width)}  ${(n.alive ? 'yes' : 'no').padEnd(5)}  ${new Date(n.lastHeartbeat).toISOString()}  ${String(n.pages).padStart(6)}  ${n.pagesPerSec.toFixed(2).padStart(8)}  ${String(n.inFlight).padStart(9)}`),
    `queues ${Object.entries(r.queues.byState).map(([k, v]) => `${k} ${v}`).join(', ') || '(no live node)'}; waiting for a node ${r.queues.pendingQueues}, held ${r.queues.leasedQueues}, retired ${r.queues.retiredQueues}`,
    `queued URIs ${r.queues.queuedUris}`,
    `totals pages ${r.totals.pages}, bytes ${r.totals.bytes}, in flight ${r.totals.inFlight}, ${r.totals.pagesPerSec} pages/s`,
  ];
  return `${lines.join('\n')}\n`;
}
