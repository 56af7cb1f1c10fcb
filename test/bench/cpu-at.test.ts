/**
 * The site bench's reading of a crawl's CPU at a moment (its first request,
 * its last response) from /proc readings taken 100 ms apart
 * (bench/thread-cpu.ts cpuAt), and the watcher that takes them, on a real
 * child process that spins for a while and then sleeps.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { cpuAt, watchThreadCpu } from '../../bench/thread-cpu.js';

test('cpuAt: even growth between the readings around the moment; 0 before the first, the last after it', () => {
  const timeline: [number, number][] = [
    [1000, 0],
    [1100, 0.2],
    [1200, 0.3],
  ];
  assert.equal(cpuAt(timeline, 900), 0);
  assert.equal(cpuAt(timeline, 1000), 0);
  assert.ok(Math.abs(cpuAt(timeline, 1050) - 0.1) < 1e-9);
  assert.ok(Math.abs(cpuAt(timeline, 1175) - 0.275) < 1e-9);
  assert.equal(cpuAt(timeline, 1200), 0.3);
  assert.equal(cpuAt(timeline, 5000), 0.3);
});

test('the watcher reads a child that spins for 0.4 s of CPU then sleeps: its CPU grows, then stays', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, async () => {
  // Spun by its own CPU, not the clock, so a loaded machine only makes it take longer.
  const spin = 'const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; }; while (cpu() < 400_000); setTimeout(() => {}, 600)';
  const child = spawn(process.execPath, ['-e', spin]);
  const watch = watchThreadCpu(child.pid!, false);
  await new Promise((resolve) => child.on('close', resolve));
  const { timeline, byGroup } = watch.stop();
  const total = timeline[timeline.length - 1]![1];
  assert.ok(total >= 0.38 && total < 3, `the child's CPU: ${total} s`);
  assert.ok((byGroup.get('main') ?? 0) >= 0.3, `its main thread: ${byGroup.get('main')} s`);
  // Once it sleeps (the last half second), its CPU no longer grows.
  const end = timeline[timeline.length - 1]![0];
  assert.ok(total - cpuAt(timeline, end - 300) < 0.08, `CPU in its last 0.3 s: ${(total - cpuAt(timeline, end - 300)).toFixed(2)} s`);
});
