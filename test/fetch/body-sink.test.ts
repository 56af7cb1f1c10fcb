/**
 * Where a body is kept while it arrives, and what may be moved out of it: a
 * spilled body's ownHead() is a read of its own, which the page thread is
 * given (moved, not copied) while the store stays whole for the writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BodySink } from '../../src/fetch/body-sink.js';

test('a spilled body gives each ownHead() call a buffer of its own, which can be moved away with the store left whole', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'body-sink-'));
  try {
    const bytes = randomBytes(64 * 1024);
    const sink = new BodySink({ tempDir: dir, memoryLimitBytes: 1024 });
    for (let at = 0; at < bytes.length; at += 4096) sink.write(bytes.subarray(at, at + 4096));
    const { body } = await sink.finish();
    assert.ok(body.ownHead !== undefined, 'a body on disk is read afresh for each call');
    const first = await body.ownHead(bytes.length);
    const second = await body.ownHead(100);
    assert.deepEqual(Buffer.from(first), bytes);
    assert.deepEqual(Buffer.from(second), bytes.subarray(0, 100));
    assert.notEqual(first.buffer, second.buffer);
    assert.equal(first.buffer.byteLength, bytes.length, 'the buffer holds this read and nothing else');
    // Moved, as PageThread.readStored moves it: the read is gone here, the store is not.
    structuredClone(first.buffer, { transfer: [first.buffer] });
    assert.equal(first.byteLength, 0);
    assert.deepEqual(await body.head(bytes.length), bytes);
    await body.dispose();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a body kept in memory has no ownHead: its head() is the store\'s own memory, which a caller must copy', async () => {
  const sink = new BodySink({ tempDir: os.tmpdir(), memoryLimitBytes: 1024 * 1024 });
  sink.write(Buffer.from('small page'));
  const { body } = await sink.finish();
  assert.equal(body.ownHead, undefined);
  assert.equal((await body.head(100)).toString(), 'small page');
});
