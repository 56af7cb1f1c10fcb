/**
 * A crawl that turns out long gets V8's default interrupt budget back
 * (src/cli/long-crawl-tiering.ts), once, at its LONG_CRAWL_CAPTURES-th
 * capture, on the crawl's own event bus.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LONG_CRAWL_CAPTURES, tierUpWhenLong, V8_DEFAULT_INTERRUPT_BUDGET } from '../../src/cli/long-crawl-tiering.js';
import { CrawlEvents, type CaptureEvent } from '../../src/crawl/crawl-events.js';

const capture = (n: number): CaptureEvent => ({ url: `http://a.test/${n}`, status: 200, mime: 'text/html', size: 10, time: n, hopPath: 'L', via: null, duplicate: false });

test('the budget goes back to V8 default at the long-crawl mark, once', () => {
  const events = new CrawlEvents();
  const set: string[] = [];
  tierUpWhenLong(events, (flags) => set.push(flags));
  for (let i = 1; i < LONG_CRAWL_CAPTURES; i++) events.emit('capture', capture(i));
  assert.deepEqual(set, [], 'a crawl shorter than the mark runs as it started');
  events.emit('capture', capture(LONG_CRAWL_CAPTURES));
  assert.deepEqual(set, [`--interrupt-budget=${V8_DEFAULT_INTERRUPT_BUDGET}`]);
  for (let i = 1; i <= 10; i++) events.emit('capture', capture(LONG_CRAWL_CAPTURES + i));
  assert.equal(set.length, 1, 'set once');
  assert.equal(events.has('capture'), false, 'and no longer listening');
});

test('a crawl over before the mark leaves the budget alone', () => {
  const events = new CrawlEvents();
  const set: string[] = [];
  const stop = tierUpWhenLong(events, (flags) => set.push(flags), 3);
  events.emit('capture', capture(1));
  stop();
  for (let i = 2; i <= 5; i++) events.emit('capture', capture(i));
  assert.deepEqual(set, []);
});

test("V8's own default is the budget named (node --v8-options)", async () => {
  const { spawnSync } = await import('node:child_process');
  const out = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  const m = /--interrupt-budget \(.*\)\n\s+type: int\s+default: --interrupt-budget=(\d+)/.exec(out);
  assert.ok(m, 'node lists the flag');
  assert.equal(Number(m[1]), V8_DEFAULT_INTERRUPT_BUDGET);
});
