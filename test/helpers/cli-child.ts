/**
 * `archiver` run as a real process (dist/src/cli/bin.js, so `npx tsc` must
 * have built it), for what only a process shows: signals, kill -9, exit
 * codes. Its stderr is collected; `waitFor` polls a condition (the job's
 * crawl.log, the fixture's request log) with a bound, so a test waits for
 * an event instead of sleeping a guessed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

export interface CliChild {
  child: ChildProcess;
  /** stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when ended by a signal) once the process is gone. */
  exit: Promise<number | null>;
  exited(): boolean;
  /** Epoch ms (performance clock, as the fixture's request log) when the process exited. */
  exitedAtMs(): number | null;
}

export function startCli(args: string[], opts: { cwd?: string } = {}): CliChild {
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(opts.cwd ? { cwd: opts.cwd } : {}) });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  let exitedAt: number | null = null;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitedAt = nowMs();
      resolve(code);
    }),
  );
  return { child, stderr: () => stderr, exit, exited: () => exitedAt !== null, exitedAtMs: () => exitedAt };
}

/** The clock of the fixture's request log (src/demo/request-log.ts preciseClock). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` every `everyMs` until it is true or `limitMs` passed; returns whether it became true. */
export async function waitFor(check: () => boolean | Promise<boolean>, limitMs = 60_000, everyMs = 10): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += everyMs) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return check();
}

/** The lines of a file ('' lines dropped), or [] when it does not exist yet. */
export async function fileLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}
