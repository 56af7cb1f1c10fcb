/**
 * Queue order keys must compare bytewise the way the policy promises, since
 * LevelDB sorts them with memcmp and nothing else looks at them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Directive, type CrawlUri } from '../../src/core/crawl-uri.js';
import { bestFirst, breadthFirst, depthFirst, queueOrderFor } from '../../src/frontier/queue-order.js';
import { DelayHeap } from '../../src/frontier/delay-heap.js';

const u = (hopPath: string, directive: Directive): CrawlUri => ({ url: 'http://a.test/', hopPath, via: null, context: '', seed: false, directive, retries: 0, redirects: 0 });
const sorted = (keys: Buffer[]): number[] => keys.map((k, i) => [k, i] as const).sort((a, b) => Buffer.compare(a[0], b[0])).map(([, i]) => i);

describe('queue order', () => {
  it('breadth-first: directive, then hops, then ordinal (past 2^32 too)', () => {
    const keys = [
      breadthFirst.sortKey(u('LLL', Directive.normal), 1),
      breadthFirst.sortKey(u('L', Directive.normal), 2 ** 33),
      breadthFirst.sortKey(u('L', Directive.normal), 5),
      breadthFirst.sortKey(u('LLLLE', Directive.high), 9),
      breadthFirst.sortKey(u('LLLLLLP', Directive.prerequisite), 10),
    ];
    assert.deepEqual(sorted(keys), [4, 3, 2, 1, 0]);
  });

  it('depth-first: directive, then most hops, then ordinal', () => {
    const keys = [
      depthFirst.sortKey(u('L', Directive.normal), 1),
      depthFirst.sortKey(u('LLL', Directive.normal), 2),
      depthFirst.sortKey(u('LLL', Directive.normal), 3),
      depthFirst.sortKey(u('P', Directive.prerequisite), 4),
    ];
    assert.deepEqual(sorted(keys), [3, 1, 2, 0]);
  });

  it('best-first: directive, then highest priority (negative, fractional, absent = 0), then ordinal', () => {
    const at = (priority: number | undefined, directive: Directive = Directive.normal): CrawlUri => ({ ...u('LL', directive), ...(priority === undefined ? {} : { priority }) });
    const keys = [
      bestFirst.sortKey(at(1.5), 1),
      bestFirst.sortKey(at(-2), 2),
      bestFirst.sortKey(at(undefined), 3),
      bestFirst.sortKey(at(-0), 4),
      bestFirst.sortKey(at(1.5), 2 ** 33),
      bestFirst.sortKey(at(1.25), 6),
      bestFirst.sortKey(at(3), 7),
      bestFirst.sortKey(at(1e-9), 8),
      bestFirst.sortKey(at(-0.5), 9),
      bestFirst.sortKey(at(0.001, Directive.high), 10),
      bestFirst.sortKey(at(-7, Directive.prerequisite), 11),
      bestFirst.sortKey(at(Number.NaN), 12),
    ];
    // NaN is no priority (0); -0 is 0; 0 ties are first-come first-served.
    assert.deepEqual(sorted(keys), [10, 9, 6, 0, 4, 5, 7, 2, 3, 11, 8, 1]);
  });

  it('is chosen by name', () => {
    assert.equal(queueOrderFor('breadth-first'), breadthFirst);
    assert.equal(queueOrderFor('depth-first'), depthFirst);
    assert.equal(queueOrderFor('best-first'), bestFirst);
    assert.throws(() => queueOrderFor('random' as never), { code: 'ARCHIVER_FRONTIER_UNKNOWN_POLICY' });
  });
});

describe('DelayHeap', () => {
  it('pops in time order whatever the push order', () => {
    const heap = new DelayHeap<number>();
    const times = [50, 10, 40, 10, 30, 20, 60, 0, 25];
    times.forEach((t, i) => heap.push(t, i));
    assert.equal(heap.peekTime(), 0);
    const out: number[] = [];
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.at);
    assert.deepEqual(out, [...times].sort((a, b) => a - b));
    assert.equal(heap.peekTime(), Infinity);
  });
});
