/**
 * `archiver demo`: the quick start. Starts the bundled demo web on loopback,
 * crawls it with profiles/demo.json, prints the summary and where the WARCs
 * are, analyses the job, and says what to try next. `--serve-only` serves
 * the demo web until Ctrl-C, for writing a profile of one's own against it.
 * Nothing leaves the machine.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { analyzeMain } from './analyze-command.js';
import { validateProfile } from '../config/load-profile.js';
import { UsageError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';
import { startDemoWeb } from '../demo/demo-web-cli.js';
import { jobAnalysisDir } from '../job/job-dir.js';
import { demoHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, portOption } from './parse-options.js';
import { ExitCode } from './exit-codes.js';
import { crawlWithSignals } from './run-command.js';
import { untilSignal } from './serve-command.js';
import { displayPath } from '../warc/warc-damage.js';

export const DEMO_PORT = 8421;

export interface DemoMainOptions {
  /** --serve-only: resolves when the web should stop; default SIGINT or SIGTERM. */
  until?: Promise<void>;
  /** --serve-only: called once the web listens (tests). */
  onListening?: (seeds: readonly string[]) => void;
}

export async function demoMain(argv: string[], io: CliIo, opts: DemoMainOptions = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    port: { type: 'string' },
    top: { type: 'string' },
    quiet: { type: 'boolean' },
    'serve-only': { type: 'boolean' },
  }, 'demo');
  if (values.help) {
    io.stdout.write(demoHelp);
    return ExitCode.ok;
  }
  if (positionals.length > 0) throw new UsageError('demo takes no arguments (see archiver demo --help)');
  const port = portOption(values.port, DEMO_PORT);
  if (values['serve-only']) return serveOnly(port, io, opts);
  const top = values.top ?? '10';
  const root = packageRoot();
  const profileFile = path.join(root, 'profiles', 'demo.json');
  const raw = JSON.parse(await readFile(profileFile, 'utf8')) as Record<string, unknown> & { scope?: Record<string, unknown>; output?: Record<string, unknown> };
  const web = await startDemoWeb(port);
  let jobDir: string;
  try {
    io.stderr.write(`demo web serving ${web.origins.join(', ')}\n`);
    // The demo profile names the default port; follow --port if another was chosen.
    raw.seeds = web.seeds;
    raw.scope = { ...(raw.scope ?? {}), hosts: web.origins.map((o) => new URL(o).host) };
    const profile = validateProfile(raw, profileFile);
    const summary = await crawlWithSignals(profile, io, { fresh: true, quiet: values.quiet === true });
    io.stdout.write(`\nWARCs written to ${summary.warcDir}\n`);
    for (const f of summary.warcFiles) io.stdout.write(`  ${path.basename(f)}\n`);
    io.stdout.write(`crawl.log and reports in ${path.dirname(summary.warcDir)}\n\n`);
    if (summary.status === 'ABORTED') return ExitCode.interrupted;
    jobDir = displayPath(path.dirname(summary.warcDir));
  } finally {
    await web.close();
  }
  const code = await analyzeMain([jobDir, '--top', top], io);
  if (code !== ExitCode.ok) return code;
  const next: [string, string][] = [
    [`archiver replay ${jobDir}`, 'browse the archive in ReplayWeb.page (on 127.0.0.1)'],
    [`archiver analyze ${jobDir} --out ${jobAnalysisDir(jobDir)}`, 'the link graph again, with CSV files and a degree plot'],
    [`archiver search ${jobDir} river`, 'full-text search over the pages'],
    [`archiver serve ${path.dirname(jobDir)}`, 'the web console of every job'],
    ['archiver demo --serve-only', 'the demo web alone, to crawl it with a profile of your own'],
  ];
  const width = Math.max(...next.map(([command]) => command.length));
  io.stdout.write(
    ['', 'Next (inside the repository, npx archiver …):', ...next.map(([command, what]) => `  ${command.padEnd(width)}  ${what}`), ''].join('\n'),
  );
  return ExitCode.ok;
}

/** The demo web alone, until Ctrl-C: its seeds and a profile to start from. */
async function serveOnly(port: number, io: CliIo, opts: DemoMainOptions): Promise<number> {
  const web = await startDemoWeb(port);
  try {
    const hosts = web.origins.map((o) => new URL(o).host);
    const profile = {
      name: 'mine',
      seeds: [web.seeds[0]],
      userAgent: 'archiver/0.1 (+https://example.org/your-crawler-page)',
      scope: { hosts },
      politeness: { minDelayMs: 20 },
      output: { dir: 'jobs/mine' },
    };
    io.stdout.write(
      [
        `demo web serving ${web.origins.join(', ')} (Ctrl-C to stop)`,
        `seeds: ${web.seeds.join(' ')}`,
        '',
        'A profile to start from (save it as mine.json, then: archiver run mine.json):',
        JSON.stringify(profile, null, 2),
        '',
      ].join('\n'),
    );
    opts.onListening?.(web.seeds);
    await (opts.until ?? untilSignal());
  } finally {
    await web.close();
  }
  return ExitCode.ok;
}
