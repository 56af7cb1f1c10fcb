/**
 * How the commands tell the operator of a cut or corrupt WARC: one
 * `warning:` line per damaged stretch, in warc-damage.ts's words (the same
 * line from analyze, index, wacz, search), and for the commands that write
 * an index (index, wacz) the refusal that says how to go on anyway.
 */
import { describeWarcDamage, WarcDamagedError, type WarcDamage } from '../warc/warc-damage.js';
import type { CliIo } from './io.js';

/** Writes each damage as a warning line on stderr. */
export function warnDamage(io: CliIo): (damage: WarcDamage) => void {
  return (damage) => void io.stderr.write(`warning: ${describeWarcDamage(damage)}\n`);
}

/**
 * The refusal for damaged input, after the warnings: which files, that
 * nothing was written, and the flag that writes what can be read.
 */
export function damageRefusal(err: WarcDamagedError, command: string, whatSkipBadDoes: string): WarcDamagedError {
  const files = new Set(err.damage.map((d) => d.file)).size;
  const stretches = err.damage.length;
  return new WarcDamagedError(
    err.damage,
    `${files === 1 ? '1 WARC file is' : `${files} WARC files are`} damaged (${stretches === 1 ? 'see the warning above' : `${stretches} places, see the warnings above`}): ` +
      `nothing written; archiver ${command} --skip-bad ${whatSkipBadDoes}`,
  );
}
