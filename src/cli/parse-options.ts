/**
 * Argument parsing shared by the commands: node's parseArgs, strict, with
 * positionals and -h/--help, its errors turned into UsageError (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(argv: string[], options: O, command = '') {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } },
    });
  } catch (err) {
    throw parseArgsUsage(err, command);
  }
}

/**
 * node:util's parseArgs errors in our words: `unknown option --bogus (see
 * archiver run --help)` rather than its own advice about positionals, whose
 * quotes do not even pair up.
 */
export function parseArgsUsage(err: unknown, command: string): UsageError {
  const e = err as NodeJS.ErrnoException;
  const option = /'(-[^' ]+)/.exec(e.message ?? '')?.[1] ?? '';
  const help = `(see archiver ${command === '' ? '' : `${command} `}--help)`;
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${option} ${help}`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(/does not take/.test(e.message) ? `option ${option} takes no value ${help}` : `option ${option} needs a value ${help}`);
    default:
      return new UsageError(`${e.message} ${help}`);
  }
}

/** A TCP port from an option value (`min` 0 lets the system choose). */
export function portOption(value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < min || port > 65535) throw new UsageError(`--port must be a port number, got ${value}`);
  return port;
}

/**
 * The store `status` and `stop` look at: their one argument, or `--store`
 * (the name `run` and `serve` give it); one of them, not both.
 */
export function storeArgument(command: string, option: string | undefined, positionals: readonly string[]): string {
  const given = [...positionals, ...(option === undefined ? [] : [option])];
  if (given.length !== 1) throw new UsageError(`${command} takes one store, redis://HOST:PORT/DB, as its argument or as --store (see archiver ${command} --help)`);
  return given[0]!;
}
