/**
 * A bench script's command line: node's parseArgs, with `--help` (`-h`)
 * printing the script's usage and an unknown or malformed option reported
 * in one line with that usage (exit 2), instead of node's stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Exit code for a command line the script cannot read (as archiver's own, src/cli/exit-codes.ts). */
export const USAGE_EXIT = 2;

/** What a script prints for `--help` and after a bad option: its usage line(s). */
export interface BenchUsage {
  usage: string;
  /** Where the lines go (tests); default stdout for help, stderr for errors, then the process exits. */
  out?: (line: string) => void;
  err?: (line: string) => void;
  exit?: (code: number) => never;
}

export function benchArgs<T extends ParseArgsConfig>(config: T, how: BenchUsage): ReturnType<typeof parseArgs<T>> {
  const out = how.out ?? ((l: string) => console.log(l));
  const err = how.err ?? ((l: string) => console.error(l));
  const exit = how.exit ?? ((code: number) => process.exit(code));
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    out(how.usage);
    return exit(0);
  }
  try {
    return parseArgs(config);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw e;
    err(`${(e as Error).message}`);
    err(how.usage);
    return exit(USAGE_EXIT);
  }
}

/**
 * A command line the script reads but cannot use, found after parsing (an
 * unknown name in a list): `line` and the usage on stderr, exit code
 * USAGE_EXIT, as a bad option gets from benchArgs. The caller returns
 * without running anything.
 */
export function refuseUsage(line: string, usage: string): void {
  console.error(line);
  console.error(usage);
  process.exitCode = USAGE_EXIT;
}
