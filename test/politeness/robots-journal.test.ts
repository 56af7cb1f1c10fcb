/**
 * Resume's memory of robots.txt (src/politeness/robots-journal.ts): results
 * saved during one run are written to a real LevelDB, the database is
 * closed as at the end of a process, reopened, and replayed into a fresh
 * RobotsStore, which must then need no robots.txt fetch for a host already
 * answered, keep its rules (checked on paths the saved file decides), keep
 * a wait with its time, a closed host closed, an allow-all as allow-all,
 * and let rules expire from when they were fetched, not from the restart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RobotsJournal } from '../../src/politeness/robots-journal.js';
import { RobotsStore } from '../../src/politeness/robots-store.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { levelDatabase } from '../../src/store/level-database.js';
import { keyspaceRecords, memoryRecords } from '../../src/store/record-store.js';

const UA = 'archiver/0.1 (+https://example.org/crawler)';
const DAY_MS = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 0, 1);

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-robots-journal-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A journal over the `robots` keyspace of the LevelDB at `location`, with a close for the end of the "process". */
async function openJournal(location: string): Promise<{ journal: RobotsJournal; close(): Promise<void> }> {
  const db = levelDatabase(location);
  await db.open();
  return { journal: new RobotsJournal(keyspaceRecords(new Keyspace(db, 'robots'))), close: () => db.close() };
}

describe('RobotsJournal across a restart', () => {
  const A = 'http://a.test';
  const B = 'http://b.test:8080';
  const C = 'https://c.test';
  const D = 'http://d.test';
  const E = 'http://e.test';
  const ROBOTS_A = 'User-agent: *\nDisallow: /private/\nCrawl-delay: 7\n';

  it('remembers every kind of answer, with its time', async () => {
    const location = path.join(dir, 'state');
    {
      const { journal, close } = await openJournal(location);
      await journal.saveFetched(A, { kind: 'fetched', status: 200, body: Buffer.from(ROBOTS_A) }, T0);
      await journal.saveFetched(B, { kind: 'fetched', status: 404, body: Buffer.from('not found') }, T0);
      await journal.saveWaiting(C, T0 + 60_000, T0);
      await journal.saveWaiting(D, Infinity, T0);
      await journal.saveAllowAll(E, T0);
      // A later answer for the same host replaces the earlier one.
      await journal.saveWaiting(A, T0 + 1000, T0 - 5000);
      await journal.saveFetched(A, { kind: 'fetched', status: 200, body: Buffer.from(ROBOTS_A) }, T0);
      await close();
    }

    const { journal, close } = await openJournal(location);
    try {
      const store = new RobotsStore();
      assert.equal(await journal.restore(store), 5);
      const now = T0 + 1000;
      // Answered hosts need no fetch: nothing is `missing`.
      assert.equal(store.status(A, now), 'ready');
      assert.equal(store.rules(A)!.isAllowed(`${A}/private/x`, UA), false);
      assert.equal(store.rules(A)!.isAllowed(`${A}/public`, UA), true);
      assert.equal(store.crawlDelaySec(A, UA), 7);
      // A 404 robots.txt allows everything (RFC 9309).
      assert.equal(store.status(B, now), 'ready');
      assert.equal(store.rules(B)!.isAllowed(`${B}/private/x`, UA), true);
      // A wait keeps its end; a closed host stays closed.
      assert.equal(store.status(C, now), 'waiting');
      assert.equal(store.waitingUntil(C, now), T0 + 60_000);
      assert.equal(store.status(C, T0 + 60_000), 'missing', 'fetched again once the wait is over');
      assert.equal(store.waitingUntil(D, now), Infinity);
      assert.equal(store.status(D, T0 + 365 * DAY_MS), 'waiting');
      assert.equal(store.status(E, now), 'ready');
      assert.equal(store.rules(E)!.isAllowed(`${E}/anything`, UA), true);
      // Rules go stale 24 h after they were fetched, not after the restart.
      assert.equal(store.status(A, T0 + DAY_MS - 1), 'ready');
      assert.equal(store.status(A, T0 + DAY_MS), 'missing');
      assert.equal(store.status('http://never.test', now), 'missing');
    } finally {
      await close();
    }
  });

  it('keeps the body byte for byte, a non-UTF-8 or newline-rich one included', async () => {
    const records = memoryRecords();
    const journal = new RobotsJournal(records);
    const body = Buffer.concat([Buffer.from('User-agent: *\r\n\r\nDisallow: /x\n\n# caf'), Buffer.from([0xe9, 0xff]), Buffer.from('\nDisallow: /y\n')]);
    await journal.saveFetched(A, { kind: 'fetched', status: 200, body }, T0);
    const store = new RobotsStore();
    assert.equal(await journal.restore(store), 1);
    assert.equal(store.rules(A)!.isAllowed(`${A}/x`, UA), false);
    assert.equal(store.rules(A)!.isAllowed(`${A}/y`, UA), false, 'lines after the odd bytes still count');
    assert.equal(store.rules(A)!.isAllowed(`${A}/z`, UA), true);
  });

  it('skips entries it cannot use (no head line, or the old unreachable form) without counting them', async () => {
    const records = memoryRecords();
    await records.put(A, Buffer.from('garbage without a newline'));
    await records.put(B, Buffer.from(JSON.stringify({ at: T0, unreachable: true }) + '\n'));
    const store = new RobotsStore();
    assert.equal(await new RobotsJournal(records).restore(store), 0);
    assert.equal(store.status(A, T0), 'missing');
    assert.equal(store.status(B, T0), 'missing', 'an unreachable robots.txt is fetched again');
  });
});
