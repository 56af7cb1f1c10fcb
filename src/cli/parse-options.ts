/**
 * Argument parsing shared by the commands: node's parseArgs, strict, with
 * positionals and -h/--help, its errors turned into UsageError (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A TCP port from an option value (`min` 0 lets the system choose). */
export function portOption(value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < min || port > 65535) throw new UsageError(`--port must be a port number, got ${value}`);
  return port;
}
