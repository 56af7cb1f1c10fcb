/**
 * The command line: `main(argv, io)` dispatches to a command and returns the
 * exit code; errors become exit codes here and nowhere else.
 */
import { UsageError } from '../core/errors.js';
import { packageVersion } from '../core/package-root.js';
import { analyzeMain } from './analyze-command.js';
import { demoMain } from './demo-command.js';
import { describeError, exitCodeFor, ExitCode } from './exit-codes.js';
import { mainHelp } from './help.js';
import type { CliIo } from './io.js';
import { indexMain } from './index-command.js';
import { replayMain } from './replay-command.js';
import { runMain } from './run-command.js';
import { searchMain } from './search-command.js';
import { serveMain } from './serve-command.js';
import { waczMain } from './wacz-command.js';

const commands: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  run: runMain,
  analyze: analyzeMain,
  demo: demoMain,
  index: indexMain,
  search: searchMain,
  wacz: waczMain,
  replay: (argv, io) => replayMain(argv, io),
  serve: (argv, io) => serveMain(argv, io),
};

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      io.stderr.write(`usage: archiver <command> [options]; the commands are ${Object.keys(commands).join(', ')} (archiver --help says more)\n`);
      return ExitCode.usage;
    }
    if (command === 'help' && rest.length > 0) {
      // `archiver help run` is `archiver run --help`.
      const topic = commands[rest[0]!];
      if (topic === undefined) throw new UsageError(`no help on "${rest[0]}": the commands are ${Object.keys(commands).join(', ')}`);
      return await topic(['--help'], io);
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(mainHelp);
      return ExitCode.ok;
    }
    if (command === '--version' || command === '-V') {
      io.stdout.write(`archiver ${packageVersion()}\n`);
      return ExitCode.ok;
    }
    const run = commands[command];
    if (!run) throw new UsageError(`unknown command "${command}" (try archiver --help)`);
    return await run(rest, io);
  } catch (err) {
    io.stderr.write(describeError(err) + '\n');
    return exitCodeFor(err);
  }
}
