/**
 * Conformance, part of frontierConformance(): failure holds are per host
 * (Outcome.hostHeld). Where a queue holds several hosts (elfHash,
 * surtAuthority), a held host's URIs are set aside as they reach the head
 * and the queue goes on with the others; they come back, in their order,
 * when the hold ends. Where a queue is one host (hostname), it snoozes.
 * Before set-aside, a robots.txt or transport failure of one host snoozed
 * its whole ELF-hash bucket for the retry delay, stalling every other host
 * hashed there.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FrontierOptions } from '../../src/config/profile.js';
import type { Make } from './conformance.js';
import { T0, drain, pendingFor, take, tryNext, uri } from './harness.js';

const HOLD_MS = 60_000;

export function holdsConformance(make: Make): void {
  const shared: [string, Partial<FrontierOptions>, string, string][] = [
    // One bucket: every host in one queue.
    ['elfHash', { queueAssignment: 'elfHash', elfHashBuckets: 1 }, 'http://x.test', 'http://y.test'],
    // http and https of one name share a queue, as two hosts (ports).
    ['surtAuthority', { queueAssignment: 'surtAuthority' }, 'http://x.test', 'https://x.test'],
  ];
  for (const [name, options, held, other] of shared) {
    it(`sets a held host's URIs aside and goes on with the other host of its queue (${name})`, async () => {
      const { frontier: f, clock } = await make(options);
      await f.schedule([uri(`${held}/1`), uri(`${held}/2`), uri(`${other}/1`), uri(`${held}/3`), uri(`${other}/2`)]);
      const x1 = await take(f);
      assert.equal(x1.uri.url, `${held}/1`);
      await f.finished(x1, { kind: 'retry', delayMs: HOLD_MS, hostHeld: true });
      for (const n of [1, 2]) {
        const claim = await take(f);
        assert.equal(claim.uri.url, `${other}/${n}`, 'the other host is not stalled');
        await f.finished(claim, { kind: 'done', delayMs: 0 });
      }
      assert.equal(await tryNext(f), null);
      const stats = f.stats();
      assert.equal(stats.queued, 3);
      assert.equal(stats.setAside, 3);
      const queues = f.queues();
      assert.equal(queues.length, 1);
      assert.deepEqual([queues[0]!.state, queues[0]!.wakeAt, queues[0]!.queued, queues[0]!.setAside], ['snoozed', null, 3, 3]);
      assert.equal(await pendingFor(f, 30), 'pending', 'not done while URIs are set aside');

      clock.advance(HOLD_MS - 1);
      assert.equal(await tryNext(f), null, 'still held');
      clock.advance(1);
      const back = await take(f);
      assert.equal(`${back.uri.url}#${back.uri.retries}`, `${held}/1#1`);
      await f.finished(back, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(f), [`${held}/2`, `${held}/3`], 'back in their order');
      assert.equal(f.stats().setAside, 0);
      assert.equal(await f.next(), null);
    });
  }

  it('under hostname assignment a held host\'s queue snoozes until the hold ends, nothing set aside', async () => {
    const { frontier: f, clock } = await make({ queueAssignment: 'hostname' });
    await f.schedule([uri('http://x.test/1'), uri('http://x.test/2'), uri('http://y.test/1')]);
    const x1 = await take(f);
    await f.finished(x1, { kind: 'retry', delayMs: HOLD_MS, hostHeld: true });
    const y1 = await take(f);
    assert.equal(y1.uri.url, 'http://y.test/1');
    await f.finished(y1, { kind: 'done', delayMs: 0 });
    assert.equal(await tryNext(f), null);
    const x = f.queues().find((q) => q.key === 'x.test')!;
    assert.deepEqual([x.state, x.wakeAt, x.queued, x.setAside], ['snoozed', T0 + HOLD_MS, 2, 0]);
    assert.equal(f.stats().setAside, 0);
    clock.advance(HOLD_MS);
    assert.deepEqual(await drain(f), ['http://x.test/1', 'http://x.test/2']);
  });

  it('sets a held host\'s URIs aside in every queue it reaches the head of (elfHash over URLs)', async () => {
    const { frontier: f, clock } = await make({ queueAssignment: 'elfHash', elfHashBuckets: 7, elfHashOf: 'url' });
    const xs = Array.from({ length: 20 }, (_, i) => uri(`http://x.test/${i}`));
    const ys = Array.from({ length: 20 }, (_, i) => uri(`http://y.test/${i}`));
    await f.schedule([...xs, ...ys]);
    const x0 = await take(f);
    assert.equal(x0.uri.url, 'http://x.test/0');
    await f.finished(x0, { kind: 'done', delayMs: HOLD_MS, hostHeld: true });
    const meanwhile = await drain(f);
    assert.deepEqual([...meanwhile].sort(), ys.map((u) => u.url).sort(), 'every y.test URI, none of x.test');
    assert.equal(f.stats().setAside, 19);
    clock.advance(HOLD_MS);
    const after = await drain(f);
    assert.deepEqual([...after].sort(), xs.slice(1).map((u) => u.url).sort());
    assert.equal(await f.next(), null);
  });

  it('holds a host until its latest hold ends', async () => {
    const { frontier: f, clock } = await make({ queueAssignment: 'elfHash', elfHashBuckets: 1 }, 2);
    await f.schedule([uri('http://x.test/1'), uri('http://x.test/2'), uri('http://y.test/1')]);
    const x1 = await take(f);
    const x2 = await take(f);
    await f.finished(x1, { kind: 'retry', delayMs: 10_000, hostHeld: true });
    await f.finished(x2, { kind: 'retry', delayMs: HOLD_MS, hostHeld: true });
    const y1 = await take(f);
    assert.equal(y1.uri.url, 'http://y.test/1');
    await f.finished(y1, { kind: 'done', delayMs: 0 });
    clock.advance(10_000);
    assert.equal(await tryNext(f), null, 'the second failure holds the host longer');
    clock.advance(HOLD_MS - 10_000);
    const back = [await take(f), await take(f)].map((c) => `${c.uri.url}#${c.uri.retries}`);
    assert.deepEqual(back, ['http://x.test/1#1', 'http://x.test/2#1']);
  });

  it('applies a hold decided after released(), unlike a politeness delay', async () => {
    const { frontier: f, clock } = await make({ queueAssignment: 'elfHash', elfHashBuckets: 1 });
    await f.schedule([uri('http://x.test/1'), uri('http://x.test/2'), uri('http://y.test/1')]);
    const x1 = await take(f);
    await f.released(x1, 0);
    await f.finished(x1, { kind: 'done', delayMs: HOLD_MS, hostHeld: true });
    assert.deepEqual(await drain(f), ['http://y.test/1']);
    assert.equal(f.stats().setAside, 1);
    clock.advance(HOLD_MS);
    assert.deepEqual(await drain(f), ['http://x.test/2']);
  });
}
