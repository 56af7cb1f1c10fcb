/**
 * The backend table: a spec names one row; being shared and being
 * inspectable are properties of the row, and what `archiver status` and
 * `archiver stop` refuse follows from them, not from the spec's spelling.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BACKENDS, backendRow, inspectStore, openStateBackend } from '../../src/backends/state-backends.js';

it('names one row per spec; shared and inspectable are the row\'s', () => {
  const rows = ['level', 'memory', 'redis://127.0.0.1:6379/0', 'redis+cluster://127.0.0.1:7000'].map((spec) => backendRow(spec));
  assert.deepEqual(rows.map((r) => [r.name, r.shared, r.inspect !== null]), [
    ['level', false, false],
    ['memory', false, false],
    ['redis', true, true],
    ['redis', true, true],
  ]);
  assert.equal(new Set(BACKENDS.map((r) => r.name)).size, BACKENDS.length);
});

it('an unknown spec is a usage error naming the known ones', async () => {
  assert.throws(() => backendRow('leveldb'), (err: Error & { code?: string }) => err.code === 'ARCHIVER_USAGE' && BACKENDS.every((r) => err.message.includes(r.specs)));
  await assert.rejects(openStateBackend('sqlite', { stateDir: '', crawl: 'c', profileHash: 'p', log: null }), { code: 'ARCHIVER_USAGE' });
});

it('status and stop refuse a row that cannot be inspected, before connecting anywhere', async () => {
  for (const spec of ['level', 'memory']) await assert.rejects(inspectStore(spec), { code: 'ARCHIVER_USAGE' });
});
