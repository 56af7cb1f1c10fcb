/**
 * The LevelDB seen filter: the shared conformance suite, plus what only a
 * persistent, ordered store can promise — the count survives reopen, keys are
 * Heritrix's 8 big-endian bytes and a host's keys are contiguous, it works
 * inside a sublevel of the crawl's shared database without disturbing it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { LevelUriUniqFilter, COUNT_KEY, HANDOFF_KEYS } from '../../src/uniq/level-uniq-filter.js';
import { keyBytes } from '../../src/uniq/heritrix-key.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { canonicalizeForSeen } from '../../src/url/canonicalize.js';
import { uniqFilterConformance } from './conformance.js';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
after(() => fs.rm(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => path.join(root, `db${dirs++}`);

uniqFilterConformance('level', async () => new LevelUriUniqFilter(freshDir()));

test('count survives close and reopen, including after forget and forgetHost', async () => {
  const dir = freshDir();
  const first = new LevelUriUniqFilter(dir);
  await first.addMany(['http://a.test/1', 'http://a.test/2', 'http://b.test/1', 'http://b.test/2', 'http://c.test/']);
  await first.forget('http://a.test/1');
  assert.equal(await first.forgetHost('http://b.test/'), 2);
  await first.close();

  const second = new LevelUriUniqFilter(dir);
  assert.equal(await second.count(), 2);
  assert.equal(await second.add('http://a.test/2'), false);
  assert.equal(await second.add('http://a.test/1'), true);
  await second.close();

  const third = new LevelUriUniqFilter(dir);
  assert.equal(await third.count(), 3);
  await third.close();
});

test('keys are the 8-byte Heritrix keys of the canonical URL, and each host is one contiguous run', async () => {
  const dir = freshDir();
  const filter = new LevelUriUniqFilter(dir);
  const hosts = ['http://alpha.test', 'https://beta.test', 'http://gamma.test:8080', 'http://delta.test', 'http://www.epsilon.test'];
  const urls: string[] = [];
  // Interleave hosts so insertion order alone could never make them contiguous.
  for (let i = 0; i < 60; i++) for (const h of hosts) urls.push(`${h}/p/${i}?q=${i * 7}`);
  await filter.addMany(urls);
  await filter.close();

  const hostOfKey = new Map<string, string>();
  for (const u of urls) hostOfKey.set(keyBytes(canonicalizeForSeen(u)).toString('hex'), new URL(u).host);

  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const runs: string[] = [];
  let stored = 0;
  for await (const key of db.keys()) {
    if (key.equals(COUNT_KEY)) continue;
    assert.equal(key.length, 8);
    const host = hostOfKey.get(key.toString('hex'));
    assert.ok(host !== undefined, `unexpected key ${key.toString('hex')}`);
    stored++;
    if (runs[runs.length - 1] !== host) runs.push(host);
  }
  await db.close();
  assert.equal(stored, urls.length);
  assert.equal(runs.length, hosts.length, `host runs: ${runs.join(' ')}`);
});

test('inside a sublevel: shares the database, leaves other sublevels alone, does not close the parent', async () => {
  const dir = freshDir();
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const frontier = db.sublevel<Buffer, Buffer>('frontier', { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const seenLevel = db.sublevel<Buffer, Buffer>('seen', { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  // A frontier entry whose bytes would fall in a host's range if prefixes leaked.
  const url = 'http://shared.test/x';
  const lookalike = keyBytes(canonicalizeForSeen(url));
  await frontier.put(lookalike, Buffer.from('queued'));

  const filter = new LevelUriUniqFilter(new Keyspace(db, 'seen'));
  assert.equal(await filter.add(url), true);
  assert.equal(await filter.forgetHost(url), 1);
  assert.equal(await filter.add(url), true);
  await filter.close();

  assert.equal(db.status, 'open');
  assert.deepEqual(await frontier.get(lookalike), Buffer.from('queued'));
  assert.equal(await seenLevel.has(lookalike), true);
  const reopened = new LevelUriUniqFilter(new Keyspace(db, 'seen'));
  assert.equal(await reopened.count(), 1);
  await reopened.close();
  await db.close();
});

test('forgetHost over more keys than one delete chunk (10,000) removes them all and only them', async () => {
  const filter = new LevelUriUniqFilter(freshDir());
  const big = Array.from({ length: 12_000 }, (_, i) => `http://big.test/${i}`);
  await filter.addMany(big);
  await filter.addMany(['http://small.test/1', 'http://small.test/2']);
  assert.equal(await filter.forgetHost('http://big.test/'), 12_000);
  assert.equal(await filter.count(), 2);
  assert.equal(await filter.add('http://small.test/1'), false);
  await filter.close();
});

test('an unusable store fails every operation with ARCHIVER_UNIQ_STORE', async () => {
  const notADir = path.join(root, 'plain-file');
  await fs.writeFile(notADir, 'not a database');
  const filter = new LevelUriUniqFilter(notADir);
  await assert.rejects(filter.add('http://example.org/'), { code: 'ARCHIVER_UNIQ_STORE' });
  await assert.rejects(filter.count(), { code: 'ARCHIVER_UNIQ_STORE' });
  await filter.close();
});

uniqFilterConformance('level, memory table capped at 3 keys', async () => new LevelUriUniqFilter(freshDir(), { memoryKeys: 3 }));

test('past its memory cap the filter stays exact by asking the store', async () => {
  const filter = new LevelUriUniqFilter(freshDir(), { memoryKeys: 100 });
  const urls = Array.from({ length: 500 }, (_, i) => `http://cap.test/${i}`);
  assert.deepEqual(await filter.addMany(urls.slice(0, 300)), Array(300).fill(true));
  assert.equal(filter.memory.complete, false);
  assert.equal(filter.memory.keys, 100);
  const again = await filter.addMany(urls);
  assert.deepEqual(again, [...Array(300).fill(false), ...Array(200).fill(true)]);
  assert.equal(await filter.count(), 500);
  assert.equal(await filter.add('http://cap.test/0'), false);
  await filter.close();
});

test('after reopening, answers are exact while the table refills, and it becomes complete', async () => {
  const dir = freshDir();
  const first = new LevelUriUniqFilter(dir);
  const stored = Array.from({ length: 30_000 }, (_, i) => `http://reopen.test/p${i}`);
  await first.addMany(stored);
  await first.close();

  const second = new LevelUriUniqFilter(dir);
  // Straight away: the refill has at most begun, so these go to the store.
  const mixed = [stored[0] as string, 'http://reopen.test/new1', stored[29_999] as string, 'http://reopen.test/new2'];
  assert.deepEqual(await second.addMany(mixed), [false, true, false, true]);
  for (let i = 0; i < 200 && !second.memory.complete; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(second.memory.complete, true);
  assert.equal(second.memory.keys, 30_002);
  assert.deepEqual(await second.addMany(mixed), [false, false, false, false]);
  // A forget while complete keeps the table exact.
  await second.forget(stored[5] as string);
  assert.equal(await second.add(stored[5] as string), true);
  assert.equal(await second.forgetHost('http://reopen.test/'), 30_002);
  assert.equal(await second.add(stored[7] as string), true);
  assert.equal(await second.count(), 1);
  await second.close();
});

test('a forget during the refill restarts it, so a forgotten key is never resurrected', async () => {
  const dir = freshDir();
  const first = new LevelUriUniqFilter(dir);
  const stored = Array.from({ length: 50_000 }, (_, i) => `http://refill.test/p${i}`);
  await first.addMany(stored);
  await first.close();

  const second = new LevelUriUniqFilter(dir);
  await second.forget(stored[49_999] as string);
  for (let i = 0; i < 300 && !second.memory.complete; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(second.memory.complete, true);
  assert.equal(second.memory.keys, 49_999);
  assert.equal(await second.add(stored[49_999] as string), true);
  await second.close();
});

test('a keyspace over a database without buffer encodings is refused at construction', async () => {
  const db = new ClassicLevel<string, string>(freshDir());
  assert.throws(() => new LevelUriUniqFilter(new Keyspace(db as unknown as ClassicLevel<Buffer, Buffer>, 'seen')), /buffer encodings/);
  await db.close();
});

test('a write that fails behind the caller is reported by the next call and by close()', async () => {
  const db = new ClassicLevel<Buffer, Buffer>(freshDir(), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const filter = new LevelUriUniqFilter(new Keyspace(db, 'seen'));
  assert.equal(await filter.add('http://fail.test/1'), true);
  assert.equal(await filter.count(), 1);
  await db.close();
  // Answered from memory; the write behind it fails.
  assert.equal(await filter.add('http://fail.test/2'), true);
  await assert.rejects(filter.add('http://fail.test/3'), { code: 'ARCHIVER_UNIQ_STORE' });
  await assert.rejects(filter.count(), { code: 'ARCHIVER_UNIQ_STORE' });
  await assert.rejects(filter.close(), { code: 'ARCHIVER_UNIQ_STORE' });
});

test('a caller that never yields still has its keys written in steps while it goes on', async () => {
  const db = new ClassicLevel<Buffer, Buffer>(freshDir(), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const writes: number[] = [];
  db.on('write', (ops: unknown[]) => writes.push(ops.length));
  const filter = new LevelUriUniqFilter(new Keyspace(db, 'seen'));
  // Every answer comes from memory, so these batches follow one another
  // through promise reactions alone: the event loop never turns unless the
  // filter waits for the store.
  const batch = 1000;
  const batches = 30;
  let fresh = 0;
  for (let b = 0; b < batches; b++) {
    const answers = await filter.addMany(Array.from({ length: batch }, (_, i) => `http://steps.test/${b}/${i}`));
    fresh += answers.filter(Boolean).length;
  }
  assert.equal(fresh, batch * batches);
  assert.equal(await filter.count(), batch * batches);
  // Each write is one group of keys plus the count. Waiting for their own
  // write only past 50,000 unwritten keys, the batches would leave all but
  // the first in one write of 29,001 operations.
  assert.ok(writes.length >= 3, `writes: ${writes.join(', ')}`);
  for (const ops of writes) assert.ok(ops <= HANDOFF_KEYS + batch + 1, `a write of ${ops} operations (writes: ${writes.join(', ')})`);
  await filter.close();
  await db.close();
});
