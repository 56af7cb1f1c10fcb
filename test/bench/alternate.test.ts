/**
 * The alternated-builds bench's arithmetic (bench/alternate.ts): medians,
 * the paired change of a build against the first round by round, and the
 * table that prints them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alternationTable, crawlUnits, pairedChange } from '../../bench/alternate.js';
import { GNU_TIME_FORMAT, gnuTimeFigures, median } from '../../bench/crawl.js';

test('median: the middle value, the mean of the two middle ones, NaN for none', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('paired change: round by round, so a drift that moves both builds cancels', () => {
  // The machine slows by half between rounds; the second build is 10% cheaper in each.
  const base = [2.0, 3.0, 4.0];
  const other = [1.8, 2.7, 3.6];
  const c = pairedChange(base, other);
  assert.ok(Math.abs(c.medianPct + 10) < 1e-9);
  assert.ok(Math.abs(c.meanPct + 10) < 1e-9);
  assert.equal(c.lower, 3);
  assert.equal(c.rounds, 3);
  // Medians alone would show the drift's spread, not the change: 3.0 against 2.7.
  assert.equal(median(base), 3);
});

test('the table: medians for every tool, the paired change for builds after the first only', () => {
  const runs = new Map([
    ['/before', [{ cpuSecs: 2, wallSecs: 1, peakRssMB: 90 }, { cpuSecs: 4, wallSecs: 2, peakRssMB: 92 }]],
    ['/after', [{ cpuSecs: 1.9, wallSecs: 1, peakRssMB: 91 }, { cpuSecs: 4.2, wallSecs: 2, peakRssMB: 91 }]],
    ['wget', [{ cpuSecs: 1, wallSecs: 1.1, peakRssMB: 7 }, { cpuSecs: 1.2, wallSecs: 1.2, peakRssMB: 7 }]],
  ]);
  const lines = alternationTable(runs, '/before');
  assert.equal(lines.length, 5);
  assert.match(lines[2]!, /^\| \/before \| 2 \| 3\.000 \[2\.00–4\.00\] \| 1\.500 \| 91\.0 \| – \| – \|$/);
  assert.match(lines[3]!, /^\| \/after \| 2 \| 3\.050 .* \| \+0\.0% \(mean \+0\.0%, 1 of 2 lower\) \| \+0\.0% \(mean \+0\.0%, 0 of 2 lower\) \|$/);
  assert.match(lines[4]!, /^\| wget \| 2 \| 1\.100 .* \| – \| – \|$/);
});

test('crawl units: every build with every profile, builds outer, each named by what tells it apart', () => {
  assert.deepEqual(
    crawlUnits(['/b/before', '/b/after'], ['/p/site.json']).map((u) => u.label),
    ['/b/before', '/b/after'],
  );
  assert.deepEqual(
    crawlUnits(['/b/main'], ['/p/site.json', '/p/no-text.json']).map((u) => [u.label, u.build, u.profile]),
    [
      ['site.json', '/b/main', '/p/site.json'],
      ['no-text.json', '/b/main', '/p/no-text.json'],
    ],
  );
  assert.deepEqual(
    crawlUnits(['/b/x', '/b/y'], ['/p/a.json', '/p/b.json']).map((u) => u.label),
    ['/b/x · a.json', '/b/x · b.json', '/b/y · a.json', '/b/y · b.json'],
  );
});

test('GNU time\'s last line read once for every bench: CPU is user + system, RSS in MiB', () => {
  // What GNU time writes for a command that exited non-zero (wget's 8): a line of its own before the figures.
  assert.deepEqual(gnuTimeFigures('Command exited with non-zero status 8\n1.57 0.71 0.81 7168\n'), { wallSecs: 1.57, cpuSecs: 0.71 + 0.81, systemSecs: 0.81, peakRssMB: 7 });
  assert.equal(GNU_TIME_FORMAT, '%e %U %S %M');
});
