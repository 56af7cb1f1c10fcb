/**
 * The SearchIndex a crawl holds: a kill loses only the uncommitted batch,
 * and catch-up from the capture journal makes the index whole again without
 * counting a page twice. The pages are journaled by the real CaptureJournal
 * in a child process that is SIGKILLed with pages queued.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CaptureJournal } from '../../src/job/capture-journal.js';
import { captureJournalPath, jobSearchDir } from '../../src/job/job-dir.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { SearchStore } from '../../src/search/search-store.js';
import { testCapture } from './search-fixtures.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-search-index-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function runKilledChild(args: string[]): Promise<NodeJS.Signals | null> {
  const here = fileURLToPath(import.meta.url);
  const child = path.join(path.dirname(here), `kill-child${path.extname(here)}`);
  const proc = spawn(process.execPath, [...process.execArgv, child, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
}

function storedCount(dir: string): number {
  const store = SearchStore.open(dir, { readonly: true });
  try {
    return store.count();
  } finally {
    store.close();
  }
}

test('a kill loses only the uncommitted pages; catch-up from the journal adds them, once', async () => {
  const job = path.join(tmp, 'job');
  const dir = jobSearchDir(job);
  const signal = await runKilledChild([dir, captureJournalPath(job), '50', '30']);
  assert.equal(signal, 'SIGKILL');
  assert.equal(storedCount(dir), 30);
  // The resume reopens the journal (which notes the unclosed run), then catches the index up.
  const journal = await CaptureJournal.open(captureJournalPath(job));
  const index = await SearchIndex.open(dir, { commitMs: 20 });
  try {
    const first = await index.catchUp(job);
    assert.equal(first.offered, 50);
    assert.equal(first.added, 20);
    assert.equal(await index.count(), 50);
    // Nothing new in the journal: nothing read, nothing added.
    const second = await index.catchUp(job);
    assert.deepEqual(second, { journalBytes: 0, offered: 0, added: 0, warcsRead: 0 });
    // The crawl goes on: new pages, and some offered again, are counted once.
    for (let i = 45; i < 60; i++) {
      const c = testCapture(i);
      await journal.append(c);
      index.add({ url: c.url, timestamp: c.date, status: c.status, mime: c.mime, digest: c.digest, title: c.title!, text: c.text! });
    }
    await index.flush();
    assert.equal(await index.count(), 60);
    assert.equal(index.added, 30);
    const hit = await index.search('uniq42');
    assert.deepEqual(hit.hits.map((h) => h.url), [testCapture(42).url]);
    assert.equal((await index.search('common words')).total, 60);
    // Pages added live are in the journal too: a catch-up reads them and adds none.
    const third = await index.catchUp(job);
    assert.equal(third.offered, 15);
    assert.equal(third.added, 0);
  } finally {
    await index.close();
    await journal.close();
  }
  assert.equal(storedCount(dir), 60);
});

test('a page added is searchable within the commit interval, without flush', async () => {
  const index = await SearchIndex.open(path.join(tmp, 'timely'), { commitMs: 100 });
  try {
    const c = testCapture(7);
    index.add({ url: c.url, timestamp: c.date, status: c.status, mime: c.mime, digest: c.digest, title: c.title!, text: c.text! });
    let found = 0;
    for (let i = 0; i < 100 && found === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = (await index.search('uniq7')).total;
    }
    assert.equal(found, 1);
  } finally {
    await index.close();
  }
});
