/**
 * `archiver demo`: the quick start. Starts the bundled demo web on loopback,
 * crawls it with profiles/demo.json, prints the summary and where the WARCs
 * are, then analyses them. Nothing leaves the machine.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { analyzeMain } from './analyze-command.js';
import { validateProfile } from '../config/load-profile.js';
import { UsageError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';
import { startDemoWeb } from '../demo/demo-web-cli.js';
import { demoHelp } from './help.js';
import type { CliIo } from './io.js';
import { parseCommandArgs, portOption } from './parse-options.js';
import { ExitCode } from './exit-codes.js';
import { crawlWithSignals } from './run-command.js';

export const DEMO_PORT = 8421;

export async function demoMain(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' }, top: { type: 'string' }, quiet: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(demoHelp);
    return ExitCode.ok;
  }
  if (positionals.length > 0) throw new UsageError('demo takes no arguments (see archiver demo --help)');
  const port = portOption(values.port, DEMO_PORT, 1);
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
