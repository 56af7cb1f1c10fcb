/**
 * `archiver demo`: the quick start. Starts the bundled demo web on loopback,
 * crawls it with profiles/demo.json, prints the summary and where the WARCs
 * are, then analyses them. Nothing leaves the machine.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeMain } from '../analysis/analyze-command.js';
import { validateProfile } from '../config/load-profile.js';
import { UsageError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';
import { startDemoWeb } from '../demo/demo-web-cli.js';
import { demoHelp } from './help.js';
import type { CliIo } from './io.js';
import { ExitCode } from './exit-codes.js';
import { crawlWithSignals } from './run-command.js';

export const DEMO_PORT = 8421;

export async function demoMain(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(argv);
  if (values.help) {
    io.stdout.write(demoHelp);
    return ExitCode.ok;
  }
  const port = values.port === undefined ? DEMO_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a port number, got ${values.port}`);
  const top = values.top ?? '10';
  const root = packageRoot();
  const profileFile = path.join(root, 'profiles', 'demo.json');
  const raw = JSON.parse(await readFile(profileFile, 'utf8')) as Record<string, unknown> & { scope?: Record<string, unknown>; output?: Record<string, unknown> };
  const web = await startDemoWeb(port);
  let warcDir: string;
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
    warcDir = summary.warcDir;
  } finally {
    await web.close();
  }
  return analyzeMain([warcDir, '--top', top], io);
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      options: {
        port: { type: 'string' },
        top: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
