/**
 * Long-running commands under npx (issue 28): killing the `npx archiver
 * serve` process (npm exec → sh → node) left the console serving, orphaned.
 * Started by npm, archiver now ends when its parent goes away; started any
 * other way (`nohup archiver serve &`), it outlives its parent as asked.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/bin.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `archiver serve` behind a shell (as npm exec runs it); resolves with the server's pid once it listens, and the shell. */
async function serveBehindShell(dir: string, env: NodeJS.ProcessEnv): Promise<{ pid: number; shell: ReturnType<typeof spawn> }> {
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve "${dir}" --port 0 & echo pid $!; wait`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    shell.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const pid = /pid (\d+)/.exec(out)?.[1];
      if (pid !== undefined && /console {2}http/.test(out)) resolve({ pid: Number(pid), shell });
    });
    shell.on('exit', () => reject(new Error(`shell ended first: ${out}`)));
  });
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (!alive(pid)) return true;
  return false;
}

describe('a command started by npm', () => {
  it('ends when its parent is killed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-parent-'));
    const { pid, shell } = await serveBehindShell(dir, { ...process.env, npm_command: 'exec' });
    try {
      shell.kill('SIGKILL');
      assert.ok(await gone(pid, 10_000), 'the server ended with its parent');
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('started otherwise, it outlives its parent (nohup stays possible)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-parent-'));
    const env = { ...process.env };
    delete env['npm_command'];
    const { pid, shell } = await serveBehindShell(dir, env);
    try {
      shell.kill('SIGKILL');
      assert.equal(await gone(pid, 2500), false, 'still serving');
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      await gone(pid, 5000);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
