/**
 * The fixture server's request log judges politeness, so a response's end
 * must be when its bytes were written, not when Node's 'close' event ran.
 * On a loaded machine the 'close' (a loop turn later, after the write's
 * callback) was seen 100-140 ms after the crawler had read the response and
 * sent its next request to the host: the log showed that request starting
 * 1.4 ms after the previous one ended (three nodes on Redis, delay 50 ms;
 * the nodes' own crawl.log said 105 ms), or two requests in flight at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestLog } from '../../src/demo/request-log.js';

class StepClock {
  t = 1000;
  now(): number {
    return this.t;
  }
}

const start = { serverHost: '127.0.0.2:80', hostHeader: '127.0.0.2:80', path: '/a', method: 'GET', userAgent: 'x' };

test('the end is when the response was sent; the host is free from then on', () => {
  const clock = new StepClock();
  const log = new RequestLog(clock);
  const a = log.begin(start);
  clock.t = 1002;
  a.sent();
  assert.equal(log.inFlightTo(start.serverHost), 0, 'free once sent');
  clock.t = 1060;
  const b = log.begin({ ...start, path: '/b' });
  clock.t = 1130;
  a.finish(200, 'identity');
  b.sent();
  b.finish(200, 'identity');
  const [first, second] = [log.entries.find((e) => e.path === '/a')!, log.entries.find((e) => e.path === '/b')!];
  assert.deepEqual([first.startMs, first.endMs, first.status], [1000, 1002, 200]);
  assert.equal(second.inFlightAtStart, 1, 'a finish that runs late does not make the next request overlap');
  assert.equal(second.startMs - first.endMs, 58);
});

test('without sent(), or when the client went away, the end is when finish ran', () => {
  const clock = new StepClock();
  const log = new RequestLog(clock);
  const a = log.begin(start);
  clock.t = 1040;
  a.finish(0, 'identity');
  a.sent();
  a.finish(200, 'identity');
  assert.deepEqual(log.entries.map((e) => [e.endMs, e.status]), [[1040, 0]]);
  assert.equal(log.inFlightTo(start.serverHost), 0, 'counted out once');
});
