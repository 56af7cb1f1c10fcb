/**
 * The last line of defence: an exception that escapes every handler (from a
 * library's event callback, say — undici 7 threw one from a socket `end`
 * handler, issue 18) must not end the process with a raw stack trace. The
 * process stops at once, as a kill would: the crawl's files are built to
 * survive exactly that (WARCs appended record by record and repaired on
 * resume, the frontier and seen filter written in crash-safe batches), so
 * no attempt is made to shut down through code whose state is now unknown.
 * The operator gets one line — what happened, where the stack went, and
 * that the same command resumes — and exit code 1.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExitCode } from './exit-codes.js';

export interface CrashGuardIo {
  stderr: { write(text: string): unknown };
  /** Ends the process; tests pass their own. */
  exit(code: number): void;
  /** Where the stack trace file goes (default: the system's temp directory). */
  dir?: string;
}

/** Install process-wide handlers for uncaught exceptions and unhandled rejections. */
export function installCrashGuard(io: CrashGuardIo): void {
  let crashed = false;
  const onCrash = (err: unknown): void => {
    if (crashed) return;
    crashed = true;
    io.stderr.write(crashLine(err, saveStack(err, io.dir ?? os.tmpdir())) + '\n');
    io.exit(ExitCode.fatal);
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
}

/** The one line: `archiver: internal error …; run the same command to resume [ARCHIVER_INTERNAL]`. */
export function crashLine(err: unknown, stackFile: string | null): string {
  const what = err instanceof Error ? `${err.name}: ${firstLine(err.message)}` : firstLine(String(err));
  const where = stackFile === null ? '' : ` (stack in ${stackFile})`;
  return `archiver: internal error, stopped at once: ${what}${where}; the job is left as after a kill — run the same command to resume [ARCHIVER_INTERNAL]`;
}

function firstLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The full stack, for a bug report; null when it cannot be written. */
function saveStack(err: unknown, dir: string): string | null {
  const file = path.join(dir, `archiver-crash-${process.pid}-${Date.now()}.txt`);
  const text = err instanceof Error ? `${err.stack ?? err.message}\n${causeChain(err)}` : String(err);
  try {
    writeFileSync(file, text);
    return file;
  } catch {
    return null;
  }
}

function causeChain(err: Error): string {
  const lines: string[] = [];
  for (let e: unknown = err.cause; e !== undefined && lines.length < 10; e = e instanceof Error ? e.cause : undefined) {
    lines.push(`caused by: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
  return lines.join('\n');
}
