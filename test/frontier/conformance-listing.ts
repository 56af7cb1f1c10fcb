/**
 * Conformance, part of frontierConformance(): which ready queue goes next
 * (`frontier.precedence`: fifo, or priority by the head URI's
 * `CrawlUri.priority`), and listing queues a page at a time.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CrawlUri } from '../../src/core/crawl-uri.js';
import type { Claim } from '../../src/frontier/frontier.js';
import type { Make } from './conformance.js';
import { drain, take, uri } from './harness.js';

const at = (u: CrawlUri, priority: number): CrawlUri => ({ ...u, priority });
const hostLetters = (urls: string[]): string => urls.map((u) => new URL(u).hostname[0]).join('');

export function listingConformance(make: Make): void {
  /**
   * Hosts a, b, c, d with priorities 1, 5, 3, 5 and two URIs each: the
   * first URI of each is handed out, they finish in `finishOrder` (so the
   * four queues become ready in that order), then the second URIs drain.
   */
  async function secondRound(precedence: 'fifo' | 'priority', finishOrder: string): Promise<string> {
    const { frontier: f } = await make({ precedence });
    const priorities = { a: 1, b: 5, c: 3, d: 5 };
    await f.schedule(Object.entries(priorities).flatMap(([h, p]) => [at(uri(`http://${h}.test/1`), p), at(uri(`http://${h}.test/2`), p)]));
    const first = new Map<string, Claim>();
    for (let i = 0; i < 4; i++) {
      const claim = await take(f);
      first.set(new URL(claim.uri.url).hostname[0]!, claim);
    }
    // fifo activates queues in turn; priority activates the best first (ties in turn), inactive or not.
    assert.deepEqual([...first.keys()].join(''), precedence === 'fifo' ? 'abcd' : 'bdca', 'the order queues are activated in');
    for (const h of finishOrder) await f.finished(first.get(h)!, { kind: 'done', delayMs: 0 });
    return hostLetters(await drain(f));
  }

  it('fifo precedence: the queue ready longest goes first, whatever the priorities', async () => {
    assert.equal(await secondRound('fifo', 'adcb'), 'adcb');
    assert.equal(await secondRound('fifo', 'bcda'), 'bcda');
  });

  it('priority precedence: the ready queue whose head has the highest priority first, ties first-in first-out', async () => {
    assert.equal(await secondRound('priority', 'adcb'), 'dbca');
    assert.equal(await secondRound('priority', 'bcda'), 'bdca');
  });

  for (const [precedence, expected] of [
    ['priority', ['http://a.test/top', 'http://b.test/2', 'http://a.test/2', 'http://a.test/deep']],
    ['fifo', ['http://b.test/2', 'http://a.test/top', 'http://a.test/2', 'http://a.test/deep']],
  ] as const) {
    it(`${precedence} precedence ranks a queue by its head as the head changes`, async () => {
      const { frontier: f } = await make({ precedence });
      await f.schedule([
        at(uri('http://a.test/1', 'L'), 1),
        at(uri('http://a.test/2', 'L'), 1),
        // Not at the head (more hops): its priority does not lift its queue.
        at(uri('http://a.test/deep', 'LL'), 100),
        at(uri('http://b.test/1', 'L'), 2),
        at(uri('http://b.test/2', 'L'), 2),
      ]);
      const a1 = await take(f);
      const b1 = await take(f);
      await f.finished(b1, { kind: 'done', delayMs: 0 });
      await f.finished(a1, { kind: 'done', delayMs: 0 });
      // Both ready, b first (in turn and by priority); now a gets a new head, fewer hops away.
      await f.schedule([at(uri('http://a.test/top'), 9)]);
      assert.deepEqual(await drain(f), expected);
    });
  }

  /**
   * Issue 29: a new host's queue (inactive) whose next URI outranks the ready
   * queue's goes first under `priority`, in every backend, and after a
   * reopen (the Redis store reads the rank back from the queue's URIs).
   */
  for (const [precedence, reopened, expected] of [
    ['priority', false, ['http://b.test/top', 'http://a.test/1', 'http://a.test/2', 'http://a.test/3']],
    ['priority', true, ['http://b.test/top', 'http://a.test/1', 'http://a.test/2', 'http://a.test/3']],
    ['fifo', false, ['http://a.test/1', 'http://a.test/2', 'http://a.test/3', 'http://b.test/top']],
  ] as const) {
    it(`${precedence} precedence: a new host's high-priority URI and a ready host's low-priority ones${reopened ? ', across a reopen' : ''}`, async () => {
      const made = await make({ precedence });
      await made.frontier.schedule([0, 1, 2, 3].map((i) => at(uri(`http://a.test/${i}`, 'L'), 0.1)));
      await made.frontier.finished(await take(made.frontier), { kind: 'done', delayMs: 0 });
      await made.frontier.schedule([at(uri('http://b.test/top', 'L'), 0.9)]);
      assert.equal(made.frontier.queues().find((q) => q.key === 'b.test')?.state, 'inactive');
      const f = reopened ? await made.reopen() : made.frontier;
      assert.deepEqual(await drain(f), expected);
    });
  }

  it('best-first order: prerequisite, embeds, then the highest priority inside a queue, kept by a reopen', async () => {
    const { frontier: f, reopen } = await make({ order: 'best-first', precedence: 'priority' });
    await f.schedule([
      at(uri('http://a.test/low', 'L'), 1.1),
      at(uri('http://a.test/high', 'LLL'), 1.9),
      uri('http://a.test/none', 'L'),
      at(uri('http://a.test/mid', 'L'), 1.5),
      at(uri('http://a.test/img.png', 'LLE'), 1.05),
      at(uri('http://a.test/robots.txt', 'P'), 1.05),
      at(uri('http://a.test/mid2', 'LL'), 1.5),
    ]);
    const first = await take(f);
    assert.equal(first.uri.url, 'http://a.test/robots.txt');
    await f.finished(first, { kind: 'done', delayMs: 0 });
    const g = await reopen();
    assert.deepEqual(await drain(g), ['http://a.test/img.png', 'http://a.test/high', 'http://a.test/mid', 'http://a.test/mid2', 'http://a.test/low', 'http://a.test/none']);
  });

  it('lists queues in key order, a page at a time, by state', async () => {
    const { frontier: f } = await make();
    await f.schedule(['e', 'b', 'd', 'a', 'c'].map((h) => uri(`http://${h}.test/1`)));
    const e1 = await take(f);
    assert.equal(e1.queueKey, 'e.test', 'the first queue made is the first activated');
    const keys = (q: { key: string }[]): string => q.map((r) => r.key[0]).join('');
    assert.equal(keys(f.queues()), 'abcde');
    assert.equal(keys(f.queues({ limit: 2 })), 'ab');
    assert.equal(keys(f.queues({ limit: 2, after: 'b.test' })), 'cd');
    assert.equal(keys(f.queues({ limit: 2, after: 'd.test' })), 'e');
    assert.equal(keys(f.queues({ limit: 2, after: 'e.test' })), '');
    assert.equal(keys(f.queues({ after: 'bb' })), 'cde', 'after a key no queue has');
    assert.equal(keys(f.queues({ limit: 0 })), '');
    assert.equal(keys(f.queues({ state: 'inactive' })), 'abcd');
    assert.equal(keys(f.queues({ state: 'inactive', limit: 2, after: 'a.test' })), 'bc');
    assert.deepEqual(f.queues({ state: 'in-process' }).map((q) => [q.key, q.inProcess]), [['e.test', 1]]);
    assert.equal(keys(f.queues({ state: 'retired' })), '');
    await f.schedule([uri('http://ab.test/1')]);
    assert.deepEqual(f.queues({ after: 'a.test', limit: 2 }).map((q) => q.key), ['ab.test', 'b.test'], 'a new queue takes its place');
  });
}
