/**
 * A node started while its Redis is down (README: "a node starting
 * meanwhile waits up to 60 s"): RedisLink.open waits, says so once on its
 * log, and goes on as soon as Redis answers; past its wait it gives up with
 * ARCHIVER_REDIS_UNREACHABLE naming the address. Real redis-server, stopped
 * before the open and started once the link has said it waits.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { freePort, needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';

/** A log that resolves `said(text)` once a line containing `text` has been written to it. */
function watchedLog(): { log: PassThrough; text: () => string; said: (text: string) => Promise<void> } {
  const log = new PassThrough();
  let all = '';
  const waiting: Array<{ text: string; resolve: () => void }> = [];
  log.on('data', (chunk: Buffer) => {
    all += chunk.toString('utf8');
    for (const w of waiting.filter((x) => all.includes(x.text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  return {
    log,
    text: () => all,
    said: (text) => (all.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ text, resolve }))),
  };
}

describe('a node whose Redis is not there yet', needsRedis(), () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
    await redis.stop();
  });
  after(async () => redis.dispose());

  it('waits, says so once, and goes on when Redis comes up', { timeout: 60_000 }, async () => {
    const spec = parseRedisSpec(redis.spec(3));
    const { log, text, said } = watchedLog();
    let opened = false;
    const opening = RedisLink.open(spec, { log, connectWaitMs: 45_000 }).then((link) => {
      opened = true;
      return link;
    });
    await said('unreachable');
    assert.equal(opened, false, 'the link did not open without Redis');
    await redis.start();
    const link = await opening;
    try {
      await link.command(['SET', 'came-up', 'yes']);
      assert.equal(await link.command(['GET', 'came-up']), 'yes');
      assert.equal(text().split('unreachable').length - 1, 1, `one notice for the outage, not one per retry:\n${text()}`);
      assert.match(text(), new RegExp(`Redis at ${spec.text.replace(/[/.]/g, '\\$&')} unreachable`));
    } finally {
      await link.close();
    }
  });

  it('gives up after its wait with ARCHIVER_REDIS_UNREACHABLE naming the address', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const spec = parseRedisSpec(`redis://127.0.0.1:${port}/0`);
    await assert.rejects(RedisLink.open(spec, { log: null, connectWaitMs: 400 }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ARCHIVER_REDIS_UNREACHABLE');
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      return true;
    });
  });
});
