/**
 * A node of a crawl of several processes does not end while another is
 * still queueing the seeds. Seen once in CI (serve-store.test.ts: one node
 * wrote no crawl.log line in 120 s while the other wrote 560): both nodes
 * start together; n2 reserves the seeds in the shared seen filter, and
 * before it has queued them n1 runs the same seeds, finds them taken, says
 * it has seeded, looks at the queues, finds nothing anywhere and ends its
 * run, having fetched nothing.
 *
 * Here n2 is this test, running the crawl's own parts over a real
 * redis-server: it joins, reserves the seeds and holds their queueing open
 * while a real `archiver run` n1 starts. n1 must still be running seconds
 * later; once n2 has queued the seeds, said so and left, n1 takes over n2's
 * queue and crawls the fixture web, every reachable URL of it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { loadProfile } from '../../src/config/load-profile.js';
import { profileHash } from '../../src/crawl/crawl-parts.js';
import { openStateBackend } from '../../src/backends/state-backends.js';
import { seedUri } from '../../src/core/crawl-uri.js';
import { fileLines, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testProfileJson } from '../helpers/test-profile.js';

const FIGURES = { pages: 0, bytes: 0, pagesPerSec: 0, inFlight: 0, busyQueues: 0, elapsedMs: 0 };

describe('a node of a crawl of two processes, while the other is queueing the seeds', needsRedis(), () => {
  let tmp: string;
  let redis: TestRedis;
  let web: FixtureWeb;
  const children: CliChild[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-nodes-seeding-'));
    redis = await startRedis();
    web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 6, port: 0 });
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await web?.close();
    await redis?.dispose();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  it('waits for them to be queued, then crawls them', { timeout: 90_000 }, async () => {
    const dir = path.join(tmp, 'job');
    const file = path.join(tmp, 'seeding.json');
    const spec = redis.spec(0);
    // The store in the profile, as n1's --store puts it there: the nodes' profile hashes must agree.
    await writeFile(file, JSON.stringify(testProfileJson('seeding', web.seeds, dir, { workers: 2, store: spec })));
    // Loaded as the CLI loads it, in this process's directory, where n1 runs too.
    const profile = await loadProfile(file, process.cwd(), () => {});

    // n2: the crawl's backend, frontier and seen filter, as a node opens them; no workers.
    const n2 = await openStateBackend(spec, { stateDir: path.join(tmp, 'n2-state'), crawl: profile.name, node: 'n2', profileHash: profileHash(profile), log: null });
    const frontier = await n2.frontier({ options: profile.frontier, maxConnectionsPerHost: profile.politeness.maxConnectionsPerHost, ...(n2.clock ? { clock: n2.clock } : {}) }, false);
    const seen = n2.seenFilter('seen', profile.uniq.memoryKeys);
    n2.coordination.start(() => FIGURES, () => {});
    let n2Open = true;
    const n2Goes = async (): Promise<void> => {
      if (!n2Open) return;
      n2Open = false;
      await frontier.close();
      await n2.coordination.leave(false);
      await seen.close();
      await n2.close();
    };
    let reserved!: () => void;
    const reservedNow = new Promise<void>((resolve) => (reserved = resolve));
    let queue!: () => void;
    const queueNow = new Promise<void>((resolve) => (queue = resolve));
    const seeding = seen.addMany(profile.seeds, async (fresh) => {
      assert.deepEqual(fresh, profile.seeds.map(() => true), 'n2 is the first to see the seeds');
      reserved();
      await queueNow;
      await frontier.schedule(profile.seeds.map(seedUri));
    });
    await reservedNow;
    try {
      const n1 = startCli(['run', file, '--store', spec, '--node', 'n1', '--quiet']);
      children.push(n1);
      const log = path.join(dir, 'logs', 'crawl-n1.log');
      // Before the fix n1 ended here, about a second after it started, with an empty crawl.log.
      assert.equal(await waitFor(() => n1.exited(), 6000, 50), false, `n1 ended while n2 was queueing the seeds: exit ${n1.child.exitCode}, ${n1.stderr()}`);
      assert.deepEqual(await fileLines(log), [], 'nothing queued yet, nothing fetched');

      queue();
      await seeding;
      await n2.coordination.seeded();
      // n2 goes: its queue is n1's to take over.
      await n2Goes();

      assert.equal(await n1.exit, 0, n1.stderr());
      const got = new Set((await fileLines(log)).map((line) => line.trim().split(/\s+/)[3]));
      const missing = web.expectedUrls().reachable.filter((u) => !got.has(u));
      assert.deepEqual(missing, [], 'n1 crawled every reachable URL');
    } finally {
      queue();
      await seeding.catch(() => undefined);
      await n2Goes();
    }
  });
});
