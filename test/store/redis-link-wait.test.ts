/**
 * A node started while its Redis is down (README: "a node starting
 * meanwhile waits up to 60 s"): RedisLink.open waits, says so once on its
 * log, and goes on as soon as Redis answers; past its wait it gives up with
 * ARCHIVER_REDIS_UNREACHABLE naming the address. Real redis-server, stopped
 * before the open and started once the link has said it waits. And the same
 * for a whole node: `archiver run --store` started while Redis is down says
 * so, waits with its default wait, and crawls once Redis is up (the web
 * server's log holds its requests; it exits 0); with no Redis at all it
 * gives up no sooner than 60 s, naming the address, exit 1.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { freePort, needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { startCli, waitFor } from '../helpers/cli-child.js';
import { testProfileJson } from '../helpers/test-profile.js';

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

describe('archiver run started while its Redis is down', needsRedis(), () => {
  let redis: TestRedis;
  let web: FixtureWeb;
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-node-wait-'));
    web = await FixtureWeb.start({ hosts: 1, pagesPerHost: 3, port: 0 });
    redis = await startRedis();
    await redis.stop();
  });
  after(async () => {
    await redis?.dispose();
    await web?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('says Redis is unreachable, waits with its default wait, and crawls once Redis is up', { timeout: 120_000 }, async () => {
    const file = path.join(tmp, 'waiting.json');
    await writeFile(file, JSON.stringify(testProfileJson('waiting', web.seeds, path.join(tmp, 'waiting'))));
    web.takeRequests();
    const node = startCli(['run', file, '--store', redis.spec(4), '--node', 'n1', '--quiet']);
    try {
      assert.ok(await waitFor(() => node.stderr().includes('unreachable') || node.exited(), 60_000), `the node says Redis is unreachable: ${node.stderr()}`);
      assert.equal(node.exited(), false, `the node waits instead of ending: ${node.stderr()}`);
      assert.match(node.stderr(), new RegExp(`Redis at ${redis.spec(4).replace(/[/.]/g, '\\$&')} unreachable`));
      assert.equal(web.requests.length, 0, 'nothing fetched without its state');
      await redis.start();
      assert.equal(await node.exit, 0, node.stderr());
      const asked = new Set(web.takeRequests().map((r) => `http://${r.host}${r.path}`));
      assert.deepEqual(web.expectedUrls().reachable.filter((u) => !asked.has(u)), [], 'the whole web crawled once Redis came up');
    } finally {
      if (!node.exited()) node.child.kill('SIGKILL');
    }
  });

  it('gives up after its default wait of 60 s, naming the address (exit 1)', { timeout: 180_000 }, async () => {
    // A promise about a duration: the node must live at least the 60 s it promises (a lower bound
    // only, which a loaded machine can only lengthen), and then end on its own.
    const port = await freePort();
    const file = path.join(tmp, 'giving-up.json');
    await writeFile(file, JSON.stringify(testProfileJson('giving-up', web.seeds, path.join(tmp, 'giving-up'))));
    const started = performance.now();
    const node = startCli(['run', file, '--store', `redis://127.0.0.1:${port}/0`, '--node', 'n1', '--quiet']);
    try {
      assert.equal(await node.exit, 1, node.stderr());
      const lived = performance.now() - started;
      assert.ok(lived >= 60_000, `waited ${Math.round(lived)} ms before giving up`);
      assert.match(node.stderr(), new RegExp(`redis://127\\.0\\.0\\.1:${port}/0: cannot reach Redis .*\\[ARCHIVER_REDIS_UNREACHABLE\\]`));
    } finally {
      if (!node.exited()) node.child.kill('SIGKILL');
    }
  });
});
