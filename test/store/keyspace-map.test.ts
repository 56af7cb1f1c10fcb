/**
 * keyspaceMap: the fingerprinted maps' store over a keyspace holds exactly
 * what a sublevel of that name holds (crawl state written by the sublevel
 * versions reads back), lists its own keys without the prefix, and clears
 * only its own range.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keyspace } from '../../src/store/keyspace.js';
import { keyspaceMap } from '../../src/store/keyspace-map.js';
import { StoredDigestIndex } from '../../src/dedup/digest-index.js';
import { useTempLevel } from '../helpers/temp-level.js';

const temp = useTempLevel();
const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
const b = (s: string) => Buffer.from(s, 'utf8');

test('what a keyspace writes, a sublevel of that name reads, and the other way round', async () => {
  const level = keyspaceMap(new Keyspace(temp.db, 'digests'));
  const sub = temp.db.sublevel<Buffer, Buffer>('digests', BUF);
  await level.batch([{ type: 'put', key: b('sha1:A'), value: b('{"url":"http://a.test/","date":"2026-01-01T00:00:00.000Z"}') }], BUF);
  assert.equal((await sub.get(b('sha1:A'), BUF))?.toString(), '{"url":"http://a.test/","date":"2026-01-01T00:00:00.000Z"}');
  await sub.put(b('sha1:B'), b('{"url":"http://b.test/","date":"2026-01-02T00:00:00.000Z"}'), BUF);
  assert.equal((await level.get(b('sha1:B'), BUF))?.toString(), '{"url":"http://b.test/","date":"2026-01-02T00:00:00.000Z"}');
  assert.equal(await level.get(b('sha1:C'), BUF), undefined);

  // A digest index over the sublevel's data finds both, after its fill from the keys.
  const idx = new StoredDigestIndex(keyspaceMap(new Keyspace(temp.db, 'digests')));
  await idx.loaded();
  assert.equal(idx.memory.digests, 2);
  assert.deepEqual(await idx.lookup('sha1:B'), { url: 'http://b.test/', date: '2026-01-02T00:00:00.000Z' });
});

test('keys come back without the prefix, in order; clear empties only its own keyspace', async () => {
  const mine = keyspaceMap(new Keyspace(temp.db, 'mine'));
  const next = keyspaceMap(new Keyspace(temp.db, 'minf')); // sorts right after 'mine'
  await mine.batch(['k2', 'k1', 'k3'].map((k) => ({ type: 'put' as const, key: b(k), value: b('v') })), BUF);
  await next.batch([{ type: 'put', key: b('other'), value: b('v') }], BUF);
  const it = mine.keys({ keyEncoding: 'buffer' });
  const first = await it.nextv(2);
  const rest = await it.nextv(10);
  await it.close();
  assert.deepEqual([...first, ...rest].map((k) => k.toString()), ['k1', 'k2', 'k3']);
  await mine.clear();
  const after = mine.keys({ keyEncoding: 'buffer' });
  assert.deepEqual(await after.nextv(10), []);
  await after.close();
  assert.equal((await next.get(b('other'), BUF))?.toString(), 'v');
});
