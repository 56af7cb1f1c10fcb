/**
 * Per-host waits (issue 12): a host's failures are counted in rounds, each
 * waited out once, and close the host when spent — never per URI.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostHealth, UNANSWERED_RETRY_DELAY_MS, describeWaiting, type HostRecord } from '../../src/politeness/host-health.js';

const opts = (policy: 'disallow' | 'allow' = 'disallow') => ({ maxRetries: 3, retryDelayMs: 1000, robots: { policy, retries: 2, retryDelayMs: 60_000 } });

describe('HostHealth', () => {
  it('waits out maxRetries failed transport rounds, then closes the host with the failure status', () => {
    const h = new HostHealth(opts());
    assert.deepEqual(h.transportFailed('a:80', -2, 0), { kind: 'wait', untilMs: 1000 });
    assert.deepEqual(h.transportFailed('a:80', -2, 1000), { kind: 'wait', untilMs: 2000 });
    assert.deepEqual(h.transportFailed('a:80', -2, 2000), { kind: 'wait', untilMs: 3000 });
    assert.deepEqual(h.transportFailed('a:80', -2, 3000), { kind: 'closed', status: -2, annotation: 'hostUnreachable' });
    assert.deepEqual(h.verdict('a:80'), { kind: 'closed', status: -2, annotation: 'hostUnreachable' });
    assert.deepEqual(h.verdict('b:80'), { kind: 'open' });
    assert.deepEqual(h.closed(), [{ host: 'a:80', status: -2, annotation: 'hostUnreachable', cause: '-2 connect failed' }]);
  });

  it('counts failures landing during a wait (other connections in flight) as the same round', () => {
    const h = new HostHealth(opts());
    h.transportFailed('a:80', -4, 0);
    assert.deepEqual(h.transportFailed('a:80', -4, 10), { kind: 'wait', untilMs: 1000 });
    assert.deepEqual(h.transportFailed('a:80', -4, 999), { kind: 'wait', untilMs: 1000 });
    assert.equal(h.waiting(500)[0]?.retry, 1);
  });

  it('starts counting again after any HTTP answer', () => {
    const h = new HostHealth(opts());
    h.transportFailed('a:80', -3, 0);
    h.transportFailed('a:80', -3, 1000);
    h.transportFailed('a:80', -3, 2000);
    h.answered('a:80');
    assert.deepEqual(h.waiting(2500), []);
    for (let i = 0; i < 3; i++) assert.equal(h.transportFailed('a:80', -3, 10_000 + i * 1000).kind, 'wait');
    assert.equal(h.transportFailed('a:80', -3, 20_000).kind, 'closed');
  });

  it('re-fetches an unavailable robots.txt `retries` times, doubling the wait, then shuts the host (disallow)', () => {
    const seen: Array<[string, HostRecord]> = [];
    const h = new HostHealth(opts('disallow'), (host, r) => seen.push([host, { ...r }]));
    assert.deepEqual(h.robotsUnavailable('a:80', 500, 0), { kind: 'wait', untilMs: 60_000 });
    assert.equal(describeWaiting(h.waiting(1)[0]!).replace(/at .*/, ''), 'a:80 robots.txt 500, retry 1/2 ');
    assert.deepEqual(h.robotsUnavailable('a:80', 503, 60_000), { kind: 'wait', untilMs: 180_000 });
    assert.deepEqual(h.robotsUnavailable('a:80', null, 180_000), { kind: 'closed', status: -61, annotation: 'robotsUnavailable' });
    assert.equal(h.closed()[0]?.cause, 'robots.txt unreachable');
    assert.equal(seen.length, 3);
    assert.deepEqual(seen.at(-1)?.[1].closed, { status: -61, annotation: 'robotsUnavailable' });
  });

  it('under `allow`, crawls the host as if robots.txt allowed all once the re-fetches are spent', () => {
    const h = new HostHealth(opts('allow'));
    h.robotsUnavailable('a:80', 500, 0);
    h.robotsUnavailable('a:80', 500, 60_000);
    assert.deepEqual(h.robotsUnavailable('a:80', 500, 180_000), { kind: 'allow' });
    assert.deepEqual(h.verdict('a:80'), { kind: 'open' });
  });

  it('a robots.txt had after failures resets the count; a restored record keeps a closed host closed', () => {
    const h = new HostHealth(opts());
    h.robotsUnavailable('a:80', 500, 0);
    h.robotsAvailable('a:80');
    assert.deepEqual(h.robotsUnavailable('a:80', 500, 70_000), { kind: 'wait', untilMs: 130_000 });
    const resumed = new HostHealth(opts());
    resumed.restore('b:80', { rounds: 0, robotsFailures: 2, untilMs: 0, cause: 'robots.txt 500', closed: { status: -61, annotation: 'robotsUnavailable' }, waitingOn: null });
    assert.equal(resumed.verdict('b:80').kind, 'closed');
  });

  // Issue 28: a seed whose port was closed took 181 s (robots.txt re-fetched at 60 s and 120 s) and was
  // reported as "robots.txt unavailable (-61)"; the words "connection refused" were only in crawl.log.
  it('a robots.txt that gets no answer from a host never met: quick re-fetches, then closed with the transport status and cause', () => {
    const h = new HostHealth(opts('allow'));
    const refused = { status: -2, cause: 'connection refused' };
    assert.deepEqual(h.robotsUnreachable('a:80', refused, 0, true), { kind: 'wait', untilMs: UNANSWERED_RETRY_DELAY_MS });
    assert.equal(describeWaiting(h.waiting(1)[0]!).replace(/at .*/, ''), 'a:80 connection refused fetching robots.txt, retry 1/2 ');
    // Still "first contact" on the re-fetch (the origin has no rules): the count goes on.
    assert.deepEqual(h.robotsUnreachable('a:80', refused, 2000, true), { kind: 'wait', untilMs: 2000 + 2 * UNANSWERED_RETRY_DELAY_MS });
    // Closed even under `allow`: there is nothing to crawl on a host that does not answer.
    assert.deepEqual(h.robotsUnreachable('a:80', refused, 6000, true), { kind: 'closed', status: -2, annotation: 'hostUnreachable' });
    assert.deepEqual(h.closed(), [{ host: 'a:80', status: -2, annotation: 'hostUnreachable', cause: 'connection refused fetching robots.txt' }]);
  });

  it('a host never met whose name DNS says does not exist is closed at once; a temporary DNS failure gets the quick re-fetches', () => {
    const h = new HostHealth(opts('allow'));
    const noSuchHost = { status: -1, cause: 'no such host (DNS)', nameNotFound: true };
    assert.deepEqual(h.robotsUnreachable('gone:80', noSuchHost, 0, true), { kind: 'closed', status: -1, annotation: 'hostUnreachable' });
    assert.deepEqual(h.closed(), [{ host: 'gone:80', status: -1, annotation: 'hostUnreachable', cause: 'no such host (DNS) fetching robots.txt' }]);
    assert.deepEqual(h.waiting(1), []);
    const temporary = { status: -1, cause: 'DNS lookup failed (temporary)', nameNotFound: false };
    assert.deepEqual(h.robotsUnreachable('busy:80', temporary, 0, true), { kind: 'wait', untilMs: UNANSWERED_RETRY_DELAY_MS });
    // A host that answered before is not judged on one DNS answer: the patient retries.
    assert.deepEqual(h.robotsUnreachable('known:80', noSuchHost, 0, false), { kind: 'wait', untilMs: 60_000 });
  });

  it('a host that answered before (its robots.txt is being refreshed) keeps the patient robots retries, named by their cause', () => {
    const h = new HostHealth(opts('disallow'));
    const timedOut = { status: -4, cause: 'timed out' };
    assert.deepEqual(h.robotsUnreachable('a:80', timedOut, 0, false), { kind: 'wait', untilMs: 60_000 });
    assert.deepEqual(h.robotsUnreachable('a:80', timedOut, 60_000, true), { kind: 'wait', untilMs: 180_000 });
    assert.deepEqual(h.robotsUnreachable('a:80', timedOut, 180_000, true), { kind: 'closed', status: -61, annotation: 'robotsUnavailable' });
    assert.equal(h.closed()[0]?.cause, 'timed out fetching robots.txt');
  });

  it('a 5xx robots.txt is not hurried: the first answer of a host is an answer', () => {
    const h = new HostHealth(opts('disallow'));
    assert.deepEqual(h.robotsUnavailable('a:80', 503, 0), { kind: 'wait', untilMs: 60_000 });
  });
});
