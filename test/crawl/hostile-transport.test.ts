/**
 * The hostile web, transport side: headers and bodies that trickle, a reset
 * mid-body, a host that accepts and never answers, a host without DNS,
 * robots.txt that times out, is 10 MB or redirects, and 429/503 with
 * Retry-After. One crawl takes them all at once: it must finish, log each
 * event with Heritrix's code or an annotation, and keep going elsewhere.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HostileWeb, NXDOMAIN_HOST } from '../fixtures/hostile-web.js';
import { hostileCrawl, linesFor, responseFor, tempRoot, type HostileCrawl } from './hostile-harness.js';

let root: Awaited<ReturnType<typeof tempRoot>>;
let web: HostileWeb;
before(async () => {
  root = await tempRoot();
  web = await HostileWeb.start();
});
after(async () => {
  await web.close();
  await root.remove();
});

describe('a crawl through failing transports', () => {
  let crawl: HostileCrawl;
  const nxUrl = () => `http://${NXDOMAIN_HOST}:${web.port}/ok/dns`;
  before(async () => {
    crawl = await hostileCrawl(web, root.dir, 'transport', [
      // On a host of its own: two failed rounds in a row close a host (maxRetries 1), and
      // nothing else of `peer` answers between them; `main` goes on with its other pages.
      web.url('peer', '/slow-headers'),
      web.url('main', '/slow-body'),
      web.url('main', '/reset'),
      web.url('main', '/ok/fine'),
      web.url('silent', '/'),
      nxUrl(),
      web.url('robotsTimeout', '/ok/rt'),
      web.url('robotsHuge', '/ok/rh'),
      web.url('robotsRedirect', '/ok/rr'),
      web.url('robotsRedirect', '/secret/rr'),
    ], {
      politeness: { maxConnectionsPerHost: 4 },
      limits: { fetchTimeoutMs: 300 },
    });
  });

  test('the crawl finishes and still archives the ordinary page', () => {
    assert.equal(crawl.summary.status, 'FINISHED');
    assert.equal(responseFor(crawl, web.url('main', '/ok/fine')).status, 200);
  });

  test('headers that trickle time out: -4 after the retries', () => {
    const lines = linesFor(crawl, web.url('peer', '/slow-headers'));
    assert.deepEqual(lines.map((l) => l.status), [-4]);
    assert.ok(lines[0]?.annotations.includes('2t'), `annotations ${lines[0]?.annotations}`);
  });

  test('a body that trickles forever is cut at the fetch deadline and archived truncated "time"', () => {
    const url = web.url('main', '/slow-body');
    const [line] = linesFor(crawl, url);
    assert.equal(line?.status, 200);
    assert.ok(line?.annotations.includes('truncated:time'), `annotations ${line?.annotations}`);
    const rec = responseFor(crawl, url);
    assert.equal(rec.warc.get('warc-truncated'), 'time');
    assert.ok(rec.payload.toString('latin1').startsWith('<!doctype html>'));
    // The link before the trickle was extracted and followed.
    assert.equal(responseFor(crawl, web.url('main', '/ok/slow')).status, 200);
  });

  test('a reset mid-body keeps what came, truncated "disconnect", and the crawl follows its links', () => {
    const url = web.url('main', '/reset');
    const rec = responseFor(crawl, url);
    assert.equal(rec.warc.get('warc-truncated'), 'disconnect');
    assert.ok(rec.payload.length > 0 && rec.payload.length < 200_000, `payload ${rec.payload.length}`);
    assert.ok(linesFor(crawl, url)[0]?.annotations.includes('truncated:disconnect'));
    assert.equal(responseFor(crawl, web.url('main', '/ok/after-reset')).status, 200);
  });

  // Issue 28: a robots.txt that gets no answer from a host never met closes the host with the
  // transport's status (it used to read -61, "robots.txt unavailable", whatever the cause).
  test('a server that accepts and never answers: robots.txt times out (-4) on each of its two tries, the page is logged -4 hostUnreachable', () => {
    assert.deepEqual(linesFor(crawl, web.url('silent', '/robots.txt')).map((l) => l.status), [-4, -4]);
    assert.deepEqual(linesFor(crawl, web.url('silent', '/')).map((l) => [l.status, l.annotations.join()]), [[-4, 'hostUnreachable']]);
  });

  test('a host DNS says does not exist: -1 for its robots.txt, asked once (the answer is cached anyway), and for its page, nothing else affected', () => {
    const robots = linesFor(crawl, `http://${NXDOMAIN_HOST}:${web.port}/robots.txt`);
    assert.deepEqual(robots.map((l) => l.status), [-1]);
    assert.ok(robots.every((l) => l.annotations.includes('ARCHIVER_FETCH_DNS')));
    assert.deepEqual(linesFor(crawl, nxUrl()).map((l) => [l.status, l.annotations.join()]), [[-1, 'hostUnreachable']]);
    assert.ok(crawl.summary.closedHosts.some((h) => h.status === -1 && h.cause === 'no such host (DNS) fetching robots.txt'), JSON.stringify(crawl.summary.closedHosts));
  });

  test('robots.txt that times out: the host is closed (-4 hostUnreachable), its pages never requested', () => {
    assert.deepEqual(linesFor(crawl, web.url('robotsTimeout', '/robots.txt')).map((l) => l.status), [-4, -4]);
    assert.deepEqual(linesFor(crawl, web.url('robotsTimeout', '/ok/rt')).map((l) => l.status), [-4]);
    assert.deepEqual(web.requestsTo('robotsTimeout').map((r) => r.path).filter((p) => p !== '/robots.txt'), []);
  });

  test('a 10 MB robots.txt: archived, its first 500 KiB obeyed, the rest ignored', () => {
    const robots = responseFor(crawl, web.url('robotsHuge', '/robots.txt'));
    assert.equal(robots.status, 200);
    const paths = web.requestsTo('robotsHuge').map((r) => r.path);
    assert.ok(paths.includes('/ok/rh'), 'the trailing "Disallow: /" past the cap is not obeyed');
    assert.ok(!paths.includes('/secret/1'), 'the leading "Disallow: /secret/" is obeyed');
    assert.deepEqual(linesFor(crawl, web.url('robotsHuge', '/secret/1')).map((l) => l.status), [-9998]);
  });

  test('a robots.txt that redirects: the 301 is archived and the host is still crawled', () => {
    assert.equal(responseFor(crawl, web.url('robotsRedirect', '/robots.txt')).status, 301);
    assert.equal(responseFor(crawl, web.url('robotsRedirect', '/ok/rr')).status, 200);
  });

  test('a robots.txt redirect is followed (RFC 9309) and its target\'s rules apply to the asking host', () => {
    // Its bytes equal other hosts' robots.txt, so it may be archived as a revisit: check the log.
    assert.deepEqual(linesFor(crawl, web.url('robotsRedirect', '/robots-real.txt')).map((l) => [l.status, l.hopPath]), [[200, 'PP']]);
    assert.deepEqual(linesFor(crawl, web.url('robotsRedirect', '/secret/rr')).map((l) => l.status), [-9998]);
    assert.ok(!web.requestsTo('robotsRedirect').some((r) => r.path === '/secret/rr'), 'the disallowed page is never requested');
  });
});

describe('429 and 503 with Retry-After', () => {
  let crawl: HostileCrawl;
  before(async () => {
    crawl = await hostileCrawl(web, root.dir, 'backoff', [
      web.url('limited', '/backoff/429'),
      web.url('limited', '/ok/after-429'),
      web.url('unavailable', '/backoff/503'),
      web.url('unavailable', '/ok/after-503'),
      web.url('peer', '/steady/0'),
    ]);
  });

  test('both are archived as captures', () => {
    assert.equal(responseFor(crawl, web.url('limited', '/backoff/429')).status, 429);
    assert.equal(responseFor(crawl, web.url('unavailable', '/backoff/503')).status, 503);
    assert.equal(crawl.summary.status, 'FINISHED');
  });

  // Retry-After: 1 counts from when the 429 reached the crawler; the server stamps its end when its own
  // write finished, which under load can come a few ms after the crawler already had the answer
  // (997.7 ms measured once): 20 ms of slack, against a back-off of a whole second.
  for (const [role, path, minGapMs] of [['limited', '/backoff/429', 980], ['unavailable', '/backoff/503', 900]] as const) {
    test(`after ${path} its host waits as asked (measured by the server), while another host keeps being crawled`, () => {
      const reqs = web.requestsTo(role).sort((a, b) => a.startMs - b.startMs);
      const i = reqs.findIndex((r) => r.path === path);
      const limited = reqs[i];
      const next = reqs[i + 1];
      assert.ok(limited && next, `requests to ${role}: ${reqs.map((r) => r.path)}`);
      // The HTTP-date form has whole-second resolution: at least ~1 s of the ~2 s asked for is left.
      assert.ok(next.startMs - limited.endMs >= minGapMs, `gap ${next.startMs - limited.endMs} ms`);
      // The peer's 150 pages (≥ 20 ms each, one at a time) outlast the back-off, so
      // it is being crawled throughout: a count, not a rate, and a low one, so
      // a loaded machine fetching a page per 300 ms still passes.
      const peer = web.requestsTo('peer');
      assert.ok(peer.some((r) => r.startMs > next.startMs), 'the peer\'s pages outlasted the back-off');
      const others = peer.filter((r) => r.startMs > limited.endMs && r.startMs < next.startMs);
      assert.ok(others.length >= 3, `peer requests during the back-off: ${others.length}`);
    });
  }
});
