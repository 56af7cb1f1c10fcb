/**
 * Resuming the LevelDB frontier after a stop, a crash with its writes
 * flushed, or a crash that loses the last write-behind batch (the LevelDB is
 * closed under the dropped frontier's feet, then reopened from its path).
 *
 * Before per-queue figures were saved, a reopened frontier started every
 * queue inactive with fresh budgets and no wake time: a host snoozed for an
 * hour by a 429 was fetched again at once, retired queues came back, and
 * finished counts restarted at 0. These tests drive a randomised crawl of a
 * made-up link graph (fake clock, several URIs in process, retries,
 * robots-style prerequisites, 429-style long delays, session and total
 * budgets) and stop it at many points, then compare with an uninterrupted
 * run: the same URIs handed out, extra hand-outs only for URIs in process at
 * a stop (or finished in a lost batch), host delays and wake times
 * respected across every reopen, retired queues never handing out again,
 * and the same per-queue figures at the end.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import type { FrontierOptions } from '../../src/config/profile.js';
import type { CrawlUri } from '../../src/core/crawl-uri.js';
import type { Claim, FrontierStats, Outcome, QueueReport } from '../../src/frontier/frontier.js';
import { LevelQueueStore } from '../../src/frontier/level-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { DEFAULT_TEST_OPTIONS, rng, uri } from './harness.js';

type Db = ClassicLevel<Buffer, Buffer>;

let dir = '';
let serial = 0;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
});

after(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** FNV-1a: the link graph and every per-URI decision are functions of the URL alone. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A crawl state directory: the frontier sits in a keyspace, as in the crawl's `state/`. */
class StateDir {
  readonly path = path.join(dir, `state-${serial++}`);
  db: Db | null = null;

  async open() {
    this.db = new ClassicLevel<Buffer, Buffer>(this.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await this.db.open();
    return new LevelQueueStore(new Keyspace(this.db, 'frontier'));
  }

  /** Close at once: writes the dropped frontier has not yet issued are refused, as if the process died. */
  async close(): Promise<void> {
    await this.db?.close();
    this.db = null;
  }
}

/** next() that does not wait: a claim if one is available now, else null. */
async function tryNext(f: WorkQueueFrontier): Promise<Claim | null> {
  const ac = new AbortController();
  const result = f.next(ac.signal);
  setImmediate(() => ac.abort());
  return result;
}

interface Scenario {
  options: Partial<FrontierOptions>;
  maxConnectionsPerHost: number;
  /** URIs a simulated worker pool holds in process at once. */
  slots: number;
  hosts: number;
  /** Links may lead to other hosts and be embeds (then only the closure, not each queue's sequence, is order-free). */
  mixed: boolean;
}

type StopMode = 'close' | 'crash-flushed' | 'crash';

const MAX_DEPTH = 4;
const LONG_DELAY_MS = 3_600_000; // a 429 with Retry-After: one hour

function children(u: CrawlUri, s: Scenario): CrawlUri[] {
  if (u.hopPath.includes('P') || u.hopPath.length >= MAX_DEPTH) return [];
  const url = new URL(u.url);
  const out: CrawlUri[] = [];
  for (let j = 0; j < hash(`${u.url}#k`) % 4; j++) {
    const h = hash(`${u.url}#${j}`);
    const host = s.mixed && h % 5 === 0 ? `h${h % s.hosts}.test` : url.host;
    const hop = s.mixed && h % 7 === 0 ? 'E' : 'L';
    out.push({ ...uri(`http://${host}${url.pathname.replace(/\/$/, '')}/c${j}`, u.hopPath + hop), via: u.url, seed: false });
  }
  return out;
}

function prerequisiteOf(u: CrawlUri): CrawlUri | null {
  if (u.hopPath.includes('P') || hash(`${u.url}#pre`) % 8 !== 0) return null;
  return { ...uri(`${u.url}?pre`, `${u.hopPath}P`), via: u.url, seed: false };
}

/** Result of one crawl (with or without stops). */
interface CrawlRecord {
  /** `url#retries` → times handed out. */
  handouts: Map<string, number>;
  /** `url#retries` → hand-outs a stop may have repeated (in process, or finished in a lost batch). */
  repeatable: Map<string, number>;
  /** Of `repeatable`, URIs finished in a batch a crash may have lost. */
  lostDone: Set<string>;
  queues: QueueReport[];
  stats: FrontierStats;
  finishes: number;
  stops: number;
}

const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);

/**
 * Crawl the graph with a fake clock, stopping right after the n-th finish for
 * each n in `stopAt` (other URIs still in process, the last 'done' not yet written).
 * Everything outside the frontier (seen set, clock) survives stops, as the
 * crawl's seen filter and the wall clock do.
 */
async function crawl(s: Scenario, seed: number, mode: StopMode | null, stopAt: ReadonlySet<number>): Promise<CrawlRecord> {
  const random = rng(seed);
  const clock = { t: 1_700_000_000_000 };
  const state = new StateDir();
  const init = async () => ({
    store: await state.open(),
    options: { ...DEFAULT_TEST_OPTIONS, ...s.options },
    maxConnectionsPerHost: s.maxConnectionsPerHost,
    clock: { now: () => clock.t },
    headBufferSize: 3,
  });
  let f = new WorkQueueFrontier(await init());
  const seen = new Set<string>();
  const done = new Set<string>();
  const record: CrawlRecord = { handouts: new Map(), repeatable: new Map(), lostDone: new Set(), queues: [], stats: f.stats(), finishes: 0, stops: 0 };
  /** Earliest next fetch per host from finishes already durable, and from those since. */
  const durableOpen = new Map<string, number>();
  const recentOpen = new Map<string, number>();
  let recentDone: string[] = [];
  const retired = new Set<string>();
  let inProcess: Claim[] = [];
  const key = (c: Claim) => `${c.uri.url}#${c.uri.retries}`;
  const hostOf = (c: Claim) => c.host;

  const durable = () => {
    for (const [h, at] of recentOpen) durableOpen.set(h, Math.max(durableOpen.get(h) ?? 0, at));
    recentOpen.clear();
    recentDone = [];
  };

  const schedule = async (uris: CrawlUri[]) => {
    const fresh = uris.filter((u) => !seen.has(u.url));
    for (const u of fresh) seen.add(u.url);
    if (fresh.length > 0) await f.schedule(fresh);
  };

  const onClaim = (c: Claim) => {
    const h = hostOf(c);
    const openAt = Math.max(durableOpen.get(h) ?? 0, recentOpen.get(h) ?? 0);
    assert.ok(clock.t >= openAt, `${c.uri.url} handed out ${openAt - clock.t} ms before its host's delay ended`);
    assert.ok(!retired.has(c.queueKey), `retired queue ${c.queueKey} handed out ${c.uri.url}`);
    // Regression: a delete batch landing while a head refill was reading once
    // let a finished URI back into the head, so it was handed out twice
    // without any stop. Only a crash that lost its 'done' may repeat it.
    assert.ok(!done.has(c.uri.url) || record.lostDone.has(key(c)), `${c.uri.url} handed out again after it was finished`);
    const pre = prerequisiteOf(c.uri);
    if (pre !== null && seen.has(pre.url) && !done.has(pre.url)) {
      assert.ok(inProcess.some((p) => p.uri.url === pre.url), `${c.uri.url} handed out before its prerequisite`);
    }
    bump(record.handouts, key(c));
    inProcess.push(c);
  };

  const stop = async () => {
    record.stops++;
    let before: { queues: QueueReport[]; stats: FrontierStats } | null = null;
    if (mode === 'close') {
      await f.close();
      durable();
    } else if (mode === 'crash-flushed') {
      await f.flush();
      durable();
    } else {
      // Finishes since the last durable point may be lost with the batch: they may be repeated.
      for (const k of recentDone) {
        bump(record.repeatable, k);
        record.lostDone.add(k);
      }
      recentOpen.clear();
      recentDone = [];
    }
    if (mode !== 'crash') before = { queues: f.queues(), stats: f.stats() };
    for (const c of inProcess) bump(record.repeatable, key(c));
    inProcess = [];
    // The old object is dropped (never closed in the crash modes).
    await state.close();
    f = await WorkQueueFrontier.open(await init());
    for (const q of f.queues()) if (q.state === 'retired') retired.add(q.key);
    if (before !== null) compareAfterReopen(before, f, clock.t);
  };

  await schedule(Array.from({ length: s.hosts }, (_, i) => uri(`http://h${i}.test/`)));
  // Discrete events: a fetch ends, or a queue wakes; the clock jumps to the earlier.
  const endsAt = new Map<Claim, number>();
  for (;;) {
    while (inProcess.length < s.slots) {
      const c = await tryNext(f);
      if (c === null) break;
      onClaim(c);
      endsAt.set(c, clock.t + 20 + Math.floor(random() * 300));
    }
    const wake = Math.min(...f.queues().map((q) => (q.wakeAt !== null && q.wakeAt > clock.t ? q.wakeAt : Infinity)));
    const c = inProcess.reduce<Claim | undefined>((a, b) => (a === undefined || endsAt.get(b)! < endsAt.get(a)! ? b : a), undefined);
    if (c === undefined || wake < endsAt.get(c)!) {
      const st = f.stats();
      if (c === undefined && st.queued === st.queuedInRetired) break;
      assert.ok(Number.isFinite(wake), `stuck with ${st.queued} queued`);
      clock.t = wake;
      continue;
    }
    inProcess.splice(inProcess.indexOf(c), 1);
    clock.t = Math.max(clock.t, endsAt.get(c)!);
    const outcome = await processUri(c);
    await f.finished(c, outcome);
    recentOpen.set(c.host, Math.max(recentOpen.get(c.host) ?? 0, clock.t + outcome.delayMs));
    if (outcome.kind === 'done') {
      done.add(c.uri.url);
      recentDone.push(key(c));
    } else durable(); // retries and defers are awaited, with every earlier write
    for (const q of f.queues()) if (q.state === 'retired') retired.add(q.key);
    if (stopAt.has(++record.finishes)) await stop();
  }
  await f.close();
  record.queues = f.queues().sort((a, b) => a.key.localeCompare(b.key));
  record.stats = f.stats();
  await state.close();
  return record;

  async function processUri(c: Claim): Promise<Outcome> {
    const u = c.uri;
    const pre = prerequisiteOf(u);
    if (pre !== null && !seen.has(pre.url)) {
      seen.add(pre.url);
      return { kind: 'defer', delayMs: 0, prerequisite: pre };
    }
    if (u.retries < hash(`${u.url}#r`) % 7 - 4) return { kind: 'retry', delayMs: 5_000 };
    await schedule(children(u, s));
    const h = hash(`${u.url}#d`);
    return { kind: 'done', delayMs: h % 23 === 0 ? LONG_DELAY_MS : 50 + (h % 400) };
  }
}

/** After a stop whose writes all landed, every queue is where it was, less what was in process. */
function compareAfterReopen(before: { queues: QueueReport[]; stats: FrontierStats }, f: WorkQueueFrontier, now: number): void {
  const after = new Map(f.queues().map((q) => [q.key, q]));
  for (const b of before.queues) {
    const a = after.get(b.key);
    assert.ok(a, `queue ${b.key} lost`);
    assert.equal(a.finished, b.finished, `${b.key} finished`);
    assert.equal(a.budgetSpent, b.budgetSpent - b.inProcess, `${b.key} budget spent`);
    assert.equal(a.queued, b.queued + b.inProcess, `${b.key} queued`);
    if (b.state === 'retired' || b.state === 'inactive' || b.state === 'exhausted') assert.equal(a.state, b.state, `${b.key} state`);
    if (b.state === 'snoozed' && b.wakeAt !== null && b.wakeAt > now) {
      assert.equal(a.state, 'snoozed', `${b.key} state`);
      assert.equal(a.wakeAt, b.wakeAt, `${b.key} wake time`);
    }
  }
  const st = f.stats();
  assert.equal(st.finished, before.stats.finished);
  assert.equal(st.queued, before.stats.queued);
  assert.equal(st.queuedInRetired, before.stats.queuedInRetired);
  assert.equal(st.inProcess, 0);
}

/** The stopped crawl did what the uninterrupted one did, repeating only what a stop may repeat. */
function compareWithReference(got: CrawlRecord, ref: CrawlRecord): void {
  assert.deepEqual([...got.handouts.keys()].sort(), [...ref.handouts.keys()].sort(), 'URIs handed out');
  for (const [k, n] of got.handouts) {
    const extra = n - ref.handouts.get(k)!;
    assert.ok(extra >= 0 && extra <= (got.repeatable.get(k) ?? 0), `${k} handed out ${n} times, uninterrupted ${ref.handouts.get(k)}`);
  }
  const figures = (q: QueueReport) => ({ key: q.key, state: q.state, queued: q.queued, finished: q.finished, budgetSpent: q.budgetSpent });
  assert.deepEqual(got.queues.map(figures), ref.queues.map(figures));
  assert.deepEqual({ ...got.stats, queuesByState: null }, { ...ref.stats, queuesByState: null });
}

/** Stop points spread over the reference run's length. */
function stopPoints(finishes: number, count: number, seed: number): Set<number> {
  const random = rng(seed);
  const points = new Set<number>();
  while (points.size < count) points.add(1 + Math.floor(random() * (finishes - 1)));
  return points;
}

const BY_HOST: Scenario = {
  options: { balanceReplenishAmount: 3, queueTotalBudget: 20 },
  maxConnectionsPerHost: 1,
  slots: 4,
  hosts: 6,
  mixed: false,
};

const SPREAD: Scenario = {
  options: { queueAssignment: 'elfHash', elfHashBuckets: 5, elfHashOf: 'url', balanceReplenishAmount: 4 },
  maxConnectionsPerHost: 2,
  slots: 5,
  hosts: 5,
  mixed: true,
};

describe('WorkQueueFrontier resume', () => {
  for (const [name, scenario, seed] of [['hostname queues with budgets', BY_HOST, 11], ['ELF-hash queues, links across hosts', SPREAD, 23]] as const) {
    describe(name, () => {
      let reference: CrawlRecord;
      before(async () => {
        reference = await crawl(scenario, seed, null, new Set());
      });

      it('the uninterrupted run is a real workload', () => {
        assert.ok(reference.handouts.size > 80, `${reference.handouts.size} URIs`);
        assert.ok([...reference.handouts.keys()].some((k) => !k.endsWith('#0')), 'some retries');
        assert.ok([...reference.handouts.keys()].some((k) => k.includes('?pre#')), 'some prerequisites');
        if (scenario === BY_HOST) assert.ok(reference.stats.queuedInRetired > 0, 'some queues retired');
      });

      for (const mode of ['close', 'crash-flushed', 'crash'] as const) {
        it(`matches the uninterrupted run after 12 stops (${mode})`, async () => {
          const stops = stopPoints(reference.finishes, 12, seed + mode.length);
          const got = await crawl(scenario, seed + 1, mode, stops);
          assert.equal(got.stops, 12);
          compareWithReference(got, reference);
          assert.ok(got.repeatable.size > got.lostDone.size, 'some URIs were in process at a stop');
          if (mode === 'crash') {
            const repeated = [...got.lostDone].filter((k) => got.handouts.get(k)! > reference.handouts.get(k)!);
            assert.ok(repeated.length > 0, 'some crash lost a write-behind batch');
          }
        });
      }
    });
  }

  it('keeps an hour-long snooze, the retry count and the figures of a queue across a crash', async () => {
    const clock = { t: 1_700_000_000_000 };
    const state = new StateDir();
    const init = async () => ({ store: await state.open(), options: { ...DEFAULT_TEST_OPTIONS, queueTotalBudget: 3 }, maxConnectionsPerHost: 1, clock: { now: () => clock.t } });
    const first = new WorkQueueFrontier(await init());
    await first.schedule(['1', '2', '3', '4', '5'].map((n) => uri(`http://a.test/${n}`)).concat(uri('http://b.test/1')));
    const a1 = (await tryNext(first))!;
    await first.finished(a1, { kind: 'retry', delayMs: 0 });
    const a1again = (await tryNext(first))!;
    assert.equal(a1again.uri.retries, 1);
    await first.finished(a1again, { kind: 'done', delayMs: LONG_DELAY_MS });
    const b1 = (await tryNext(first))!;
    assert.equal(b1.uri.url, 'http://b.test/1');
    await first.finished(b1, { kind: 'retry', delayMs: 5_000 });
    await first.flush();
    const beforeA = first.queues().find((q) => q.key === 'a.test')!;
    assert.equal(beforeA.wakeAt, clock.t + LONG_DELAY_MS);
    await state.close(); // crash: `first` is never closed

    clock.t += 10_000;
    const second = await WorkQueueFrontier.open(await init());
    const a = second.queues().find((q) => q.key === 'a.test')!;
    assert.deepEqual({ ...a }, { ...beforeA });
    const b = (await tryNext(second))!;
    assert.equal(`${b.uri.url}#${b.uri.retries}`, 'http://b.test/1#1');
    await second.finished(b, { kind: 'done', delayMs: 0 });
    assert.equal(await tryNext(second), null, 'a.test is still snoozed');
    clock.t = beforeA.wakeAt! + 1;
    const a2 = (await tryNext(second))!;
    assert.equal(a2.uri.url, 'http://a.test/2');
    await second.finished(a2, { kind: 'done', delayMs: 0 });
    const a3 = (await tryNext(second))!;
    await second.finished(a3, { kind: 'done', delayMs: 0 });
    assert.equal(second.queues().find((q) => q.key === 'a.test')!.state, 'retired');
    await second.close();
    await state.close();

    const third = await WorkQueueFrontier.open(await init());
    assert.deepEqual(
      third.queues().map((q) => [q.key, q.state, q.finished, q.budgetSpent, q.queued]).sort(),
      [['a.test', 'retired', 3, 3, 2], ['b.test', 'exhausted', 1, 1, 0]],
    );
    assert.deepEqual({ ...third.stats(), queuesByState: null }, { queued: 2, inProcess: 0, finished: 4, queuedInRetired: 2, setAside: 0, queuesByState: null });
    assert.equal(await third.next(), null, 'only a retired queue has URIs: the crawl is over');
    await third.close();
    await state.close();
  });
});
