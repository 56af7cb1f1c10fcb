/**
 * Conformance, part of frontierConformance(): a frontier closed and opened
 * again over the same store is the frontier it was — the same queues in the
 * same states, the same wake times (queues' and hosts'), the same counts —
 * except that URIs in process at the close are queued again, uncharged.
 * (Crashes, and losing the last write-behind batch, are the LevelDB
 * frontier's own tests: resume.test.ts.)
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { QueueReport } from '../../src/frontier/frontier.js';
import type { Make } from './conformance.js';
import { T0, drain, take, tryNext, uri } from './harness.js';

const done = { kind: 'done', delayMs: 0 } as const;

export function resumeConformance(make: Make): void {
  it('resumes with the same queue states, wake times and counts; URIs in process are queued again', async () => {
    const m = await make({ balanceReplenishAmount: 2, queueTotalBudget: 3 });
    let f = m.frontier;
    await f.schedule([
      ...['1', '2', '3', '4'].map((n) => uri(`http://a.test/${n}`)),
      ...['1', '2'].map((n) => uri(`http://b.test/${n}`)),
      uri('http://c.test/1'),
      ...['1', '2', '3'].map((n) => uri(`http://d.test/${n}`)),
    ]);
    const step = async (url: string, delayMs: number | null) => {
      const claim = await take(f);
      assert.equal(claim.uri.url, url);
      if (delayMs !== null) await f.finished(claim, { kind: 'done', delayMs });
    };
    await step('http://a.test/1', 0);
    await step('http://a.test/2', 0); // a spent its session: inactive again
    await step('http://b.test/1', 60_000); // b snoozed for a minute
    await step('http://c.test/1', 0); // c exhausted
    await step('http://d.test/1', 0);
    await step('http://d.test/2', 0); // d inactive again
    await step('http://a.test/3', 0); // a at its total budget: retired, a/4 left
    await step('http://d.test/3', null); // in process at the close
    await f.schedule([uri('http://e.test/1')]); // e never activated
    const before = f.queues();
    const stats = f.stats();
    assert.deepEqual(
      before.map((q) => [q.key, q.state]),
      [['a.test', 'retired'], ['b.test', 'snoozed'], ['c.test', 'exhausted'], ['d.test', 'in-process'], ['e.test', 'inactive']],
    );

    f = await m.reopen();
    const after = f.queues();
    assert.deepEqual(after.map((q) => q.key), before.map((q) => q.key));
    for (const [i, b] of before.entries()) {
      const a = after[i]!;
      const inProcess = b.inProcess;
      assert.deepEqual(
        [a.finished, a.queued, a.inProcess, a.budgetSpent, a.wakeAt],
        [b.finished, b.queued + inProcess, 0, b.budgetSpent - inProcess, b.wakeAt],
        `${b.key}'s figures`,
      );
      if (inProcess === 0) assert.equal(a.state, b.state, `${b.key}'s state`);
    }
    assert.equal(after.find((q) => q.key === 'b.test')!.wakeAt, T0 + 60_000);
    assert.deepEqual(
      { ...f.stats(), queuesByState: null },
      { ...stats, inProcess: 0, queuesByState: null },
      'queued counts the URIs that were in process; finished continues',
    );

    // And it goes on as the first would have: d/3 again, e; b once awake; then only retired a/4.
    assert.deepEqual(await drain(f), ['http://d.test/3', 'http://e.test/1']);
    m.clock.advance(59_999);
    assert.equal(await tryNext(f), null, 'b still snoozed');
    m.clock.advance(1);
    assert.deepEqual(await drain(f), ['http://b.test/2']);
    assert.equal(await f.next(), null);

    // With nothing in process, a second reopen is exactly the same.
    const last: QueueReport[] = f.queues();
    const lastStats = f.stats();
    f = await m.reopen();
    assert.deepEqual(f.queues(), last);
    assert.deepEqual(f.stats(), lastStats);
  });

  it('resumes hosts\' delays whatever queues their URIs are in', async () => {
    const m = await make({ queueAssignment: 'elfHash', elfHashBuckets: 64, elfHashOf: 'url' });
    const xs = Array.from({ length: 6 }, (_, i) => uri(`http://x.test/${i}`));
    await m.frontier.schedule([...xs, uri('http://y.test/1')]);
    const x0 = await take(m.frontier);
    await m.frontier.finished(x0, { kind: 'done', delayMs: 60_000 });
    const f = await m.reopen();
    m.clock.advance(59_999);
    assert.deepEqual(await drain(f), ['http://y.test/1'], 'x.test stays closed for its delay after the reopen');
    m.clock.advance(1);
    const x = await take(f);
    assert.ok(x.uri.url.startsWith('http://x.test/'));
    await f.finished(x, done);
  });

  it('queues set-aside URIs again on resume; the hold survives as the host\'s delay', async () => {
    const m = await make({ queueAssignment: 'elfHash', elfHashBuckets: 1 });
    await m.frontier.schedule([uri('http://x.test/1'), uri('http://x.test/2'), uri('http://y.test/1'), uri('http://y.test/2')]);
    const x1 = await take(m.frontier);
    await m.frontier.finished(x1, { kind: 'retry', delayMs: 60_000, hostHeld: true });
    const y1 = await take(m.frontier);
    assert.equal(y1.uri.url, 'http://y.test/1');
    await m.frontier.finished(y1, done);
    assert.equal(m.frontier.stats().setAside, 2);
    const f = await m.reopen();
    assert.deepEqual([f.stats().queued, f.stats().setAside], [3, 0]);
    const meanwhile: string[] = [];
    for (let t = 0; t < 60_000; t += 10_000) {
      meanwhile.push(...(await drain(f)));
      m.clock.advance(10_000);
    }
    assert.ok(!meanwhile.some((u) => u.startsWith('http://x.test/')), `no x.test URI before its hold ends: ${meanwhile.join(' ')}`);
    const rest = [...meanwhile, ...(await drain(f))];
    assert.deepEqual([...rest].sort(), ['http://x.test/1', 'http://x.test/2', 'http://y.test/2']);
  });
}
