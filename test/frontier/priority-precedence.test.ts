/**
 * Regression (issue 29): under `frontier.precedence: "priority"` the
 * frontier ranked only READY queues. Inactive queues were activated in
 * rotation order, and only once no queue was ready, so a high-priority URI
 * of a host not yet worked (its queue new, so inactive) waited behind every
 * low-priority URI of the hosts already ready: a focused or sitemap-dated
 * crawl served its best new host last. Now the next queue served is the
 * best among ready and inactive queues (ranked by the priority of their
 * next URI, kept in the queue's figures so that an inactive queue's head
 * need not be read), taking the session of the ready queue it goes before,
 * so that active queues do not multiply. `fifo` precedence is unchanged.
 *
 * Real LevelDB (the crawl's queue store), a clock moved by hand, delay 0.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import type { QueueOrderName, QueuePrecedenceName } from '../../src/config/profile.js';
import type { CrawlUri } from '../../src/core/crawl-uri.js';
import { LevelQueueStore } from '../../src/frontier/level-queue-store.js';
import type { QueueStore } from '../../src/frontier/queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { DEFAULT_TEST_OPTIONS, ManualClock, drain, take, uri } from './harness.js';

type Db = ClassicLevel<Buffer, Buffer>;

let dir = '';
let serial = 0;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-precedence-'));
});

after(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const at = (u: CrawlUri, priority: number): CrawlUri => ({ ...u, priority });
const hostOf = (url: string): string => new URL(url).hostname;

/** A frontier over a LevelDB of its own, reopenable from the same directory. */
class LevelFrontier {
  readonly path = path.join(dir, `state-${serial++}`);
  readonly clock = new ManualClock();
  db: Db | null = null;
  frontier: WorkQueueFrontier | null = null;
  /** Queue keys whose URIs the frontier read from the store, in order (since the last open). */
  reads: string[] = [];

  constructor(
    readonly precedence: QueuePrecedenceName,
    readonly order: QueueOrderName,
    readonly sessionBudget = DEFAULT_TEST_OPTIONS.balanceReplenishAmount,
  ) {}

  async open(): Promise<WorkQueueFrontier> {
    this.db = new ClassicLevel<Buffer, Buffer>(this.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await this.db.open();
    const level = new LevelQueueStore(new Keyspace(this.db, 'frontier'));
    this.reads = [];
    const store: QueueStore = {
      load: () => level.load(),
      add: (entries) => level.add(entries),
      commit: (batch) => level.commit(batch),
      readAfter: (queueKey, after, limit) => {
        this.reads.push(queueKey);
        return level.readAfter(queueKey, after, limit);
      },
    };
    this.frontier = await WorkQueueFrontier.open({
      store,
      options: { ...DEFAULT_TEST_OPTIONS, precedence: this.precedence, order: this.order, balanceReplenishAmount: this.sessionBudget },
      maxConnectionsPerHost: 1,
      clock: this.clock,
    });
    return this.frontier;
  }

  /** A stop: the frontier flushes and closes, then the database. */
  async close(): Promise<void> {
    await this.frontier?.close();
    await this.db?.close();
    this.frontier = null;
    this.db = null;
  }
}

/**
 * Host a has 20 low-priority URIs and is being worked (its first URI
 * fetched, the queue ready again); then host b's first URI arrives with a
 * high priority: b's queue is new, so inactive.
 */
async function readyLowThenNewHigh(f: WorkQueueFrontier): Promise<void> {
  await f.schedule(Array.from({ length: 20 }, (_, i) => at(uri(`http://a.test/${i}`, 'L'), 0.1)));
  const first = await take(f);
  assert.equal(first.uri.url, 'http://a.test/0');
  await f.finished(first, { kind: 'done', delayMs: 0 });
  await f.schedule([at(uri('http://b.test/top', 'L'), 0.9)]);
  const states = new Map(f.queues().map((q) => [q.key, q.state]));
  assert.equal(states.get('a.test'), 'ready');
  assert.equal(states.get('b.test'), 'inactive', 'the new host waits inactive: the case under test');
}

const A_REST = Array.from({ length: 19 }, (_, i) => `http://a.test/${i + 1}`);

for (const order of ['breadth-first', 'best-first'] as const) {
  describe(`priority precedence over ready and inactive queues (${order} order, LevelDB)`, () => {
    it("a new host's high-priority URI goes before a ready host's 19 low-priority ones", async () => {
      const state = new LevelFrontier('priority', order);
      const f = await state.open();
      await readyLowThenNewHigh(f);
      const served = await take(f);
      assert.equal(served.uri.url, 'http://b.test/top', 'the inactive queue whose next URI ranks highest is served first');
      // b took a's session: a waits inactive again, so active queues did not grow.
      const states = new Map(f.queues().map((q) => [q.key, q.state]));
      assert.equal(states.get('a.test'), 'inactive');
      assert.equal(states.get('b.test'), 'in-process');
      await f.finished(served, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(f), A_REST);
      await state.close();
    });

    it('the ordering survives a stop: the new host still goes first after a reopen', async () => {
      const state = new LevelFrontier('priority', order);
      await readyLowThenNewHigh(await state.open());
      await state.close();
      const g = await state.open();
      assert.deepEqual(await drain(g), ['http://b.test/top', ...A_REST]);
      await state.close();
    });

    it('with no queue ready, the best inactive queue is activated first, not the oldest', async () => {
      const state = new LevelFrontier('priority', order);
      const f = await state.open();
      await f.schedule([at(uri('http://c.test/1'), 0.2), at(uri('http://d.test/1'), 0.8), at(uri('http://e.test/1'), 0.5), uri('http://n.test/1')]);
      assert.deepEqual((await drain(f)).map(hostOf), ['d.test', 'e.test', 'c.test', 'n.test']);
      await state.close();
    });

    it("an inactive queue is ranked again when a better URI joins it, and that rank is what a reopen sees", async () => {
      const state = new LevelFrontier('priority', order);
      const f = await state.open();
      await f.schedule([at(uri('http://c.test/low', 'L'), 0.2), at(uri('http://d.test/low', 'L'), 0.3)]);
      // Fewer hops and a better priority: c's next URI under either order.
      await f.schedule([at(uri('http://c.test/high'), 0.95)]);
      await state.close();
      const g = await state.open();
      const first = await take(g);
      assert.equal(first.uri.url, 'http://c.test/high');
      // Ranked from the saved figures: only the queue served was read, not every inactive one.
      assert.deepEqual([...new Set(state.reads)], ['c.test']);
      await g.finished(first, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(g), ['http://d.test/low', 'http://c.test/low']);
      await state.close();
    });
  });
}

describe('the session budget under each precedence (balanceReplenishAmount 2, LevelDB)', () => {
  /** Hosts a and b rank 0.5, c 0.2; four URIs each. */
  async function served(precedence: QueuePrecedenceName): Promise<string> {
    const state = new LevelFrontier(precedence, 'breadth-first', 2);
    const f = await state.open();
    await f.schedule(['a', 'b', 'c'].flatMap((h) => [1, 2, 3, 4].map((i) => at(uri(`http://${h}.test/${i}`, 'L'), h === 'c' ? 0.2 : 0.5))));
    const order = (await drain(f)).map((u) => hostOf(u)[0]).join('');
    await state.close();
    return order;
  }

  it('priority: a queue that spent its session yields to those ranked as high, and comes back before lower ones', async () => {
    assert.equal(await served('priority'), 'aabbaabbcccc');
  });

  it('fifo: every inactive queue gets its turn in rotation', async () => {
    assert.equal(await served('fifo'), 'aabbccaabbcc');
  });
});

describe('fifo precedence keeps its order (LevelDB)', () => {
  it("a new host's URI waits until the ready host's queue runs dry or spends its session", async () => {
    const state = new LevelFrontier('fifo', 'breadth-first');
    const f = await state.open();
    await readyLowThenNewHigh(f);
    assert.deepEqual(await drain(f), [...A_REST, 'http://b.test/top']);
    await state.close();
  });

  it('inactive queues are activated in the order they were made, whatever their priorities', async () => {
    const state = new LevelFrontier('fifo', 'breadth-first');
    const f = await state.open();
    await f.schedule([at(uri('http://c.test/1'), 0.2), at(uri('http://d.test/1'), 0.8), at(uri('http://e.test/1'), 0.5)]);
    assert.deepEqual((await drain(f)).map(hostOf), ['c.test', 'd.test', 'e.test']);
    await state.close();
  });
});
