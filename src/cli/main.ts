/**
 * The command line: `main(argv, io)` dispatches to a command and returns the
 * exit code; errors become exit codes here and nowhere else. A command's
 * module is loaded when it runs: a crawl does not carry the console, the
 * search engine's SQLite or the analysis in its memory (18 MB at start when
 * every command was loaded up front).
 */
import { UsageError } from '../core/errors.js';
import { packageVersion } from '../core/package-root.js';
import { describeError, exitCodeFor, ExitCode } from './exit-codes.js';
import { mainHelp } from './help.js';
import type { CliIo } from './io.js';

type Command = (argv: string[], io: CliIo) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run-command.js')).runMain,
  analyze: async () => (await import('./analyze-command.js')).analyzeMain,
  demo: async () => (await import('./demo-command.js')).demoMain,
  index: async () => (await import('./index-command.js')).indexMain,
  search: async () => (await import('./search-command.js')).searchMain,
  wacz: async () => (await import('./wacz-command.js')).waczMain,
  replay: async () => (argv, io) => import('./replay-command.js').then((m) => m.replayMain(argv, io)),
  serve: async () => (argv, io) => import('./serve-command.js').then((m) => m.serveMain(argv, io)),
  status: async () => (await import('./status-command.js')).statusMain,
  stop: async () => (await import('./stop-command.js')).stopMain,
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
      return await (await topic())(['--help'], io);
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(mainHelp);
      return ExitCode.ok;
    }
    if (command === '--version' || command === '-V') {
      io.stdout.write(`archiver ${packageVersion()}\n`);
      return ExitCode.ok;
    }
    const load = commands[command];
    if (!load) throw new UsageError(`unknown command "${command}" (try archiver --help)`);
    return await (await load())(rest, io);
  } catch (err) {
    io.stderr.write(describeError(err) + '\n');
    return exitCodeFor(err);
  }
}
