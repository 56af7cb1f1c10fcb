/**
 * The progress line (issue 28). The first line after a resume said `0.0/s`
 * though 185 URIs had been fetched in those 5 s (the rate was taken against
 * the line itself); a crawl held to one URI every 3 s by the default
 * politeness ran for an hour and nothing said how long, nor why.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfile } from '../../src/config/load-profile.js';
import type { CrawlStatus } from '../../src/crawl/crawl-status.js';
import { EtaEstimator, formatEta, politenessCapNote, politenessFloorSec } from '../../src/crawl/eta.js';
import { Progress } from '../../src/crawl/progress.js';
import { Capture } from '../helpers/capture.js';
import { TEST_USER_AGENT } from '../helpers/test-profile.js';

function status(over: Partial<CrawlStatus>): CrawlStatus {
  return {
    job: 'j', state: 'running', endReason: null, uris: 0, pages: 0, bytes: 0, errors: 0, disregarded: 0, retries: 0, queued: 0, inProcess: 0,
    queues: { ready: 1, inProcess: 0, snoozed: 0, inactive: 0, retired: 0, exhausted: 0 },
    urisPerSec: 0, kbPerSec: 0, elapsedSec: 0, runElapsedSec: 0, waiting: [],
    ...over,
  };
}

const minimal = (extra: Record<string, unknown> = {}) => validateProfile({ name: 'p', seeds: ['http://a.test/'], userAgent: TEST_USER_AGENT, ...extra }, 'p');

describe('progress line', () => {
  it('the first line of a resumed run shows the run\'s rate, not 0.0/s, and the time left', async () => {
    // A job resumed with 1000 URIs done; 185 more ended in the run's first 5 s, 400 queued.
    const states = [
      status({ uris: 1000, queued: 585, elapsedSec: 300, runElapsedSec: 0 }),
      status({ uris: 1185, bytes: 185 * 2048, queued: 400, elapsedSec: 305, runElapsedSec: 5, urisPerSec: 37, kbPerSec: 74 }),
    ];
    const out = new Capture();
    const p = new Progress({ out, intervalMs: 10 });
    p.start(() => states.shift() ?? states[0] ?? status({}));
    await new Promise((r) => setTimeout(r, 15));
    p.stop();
    const first = out.text.split('\n')[0]!;
    assert.match(first, /URIs 1185 \(37\.0\/s, 74\.0 KB\/s\)/);
    // 400 queued at 37/s: about 11 s.
    assert.match(first, /queued 400 left ~11 s /);
  });
});

describe('ETA', () => {
  it('is what is queued over the recent rate, never below the politeness floor', () => {
    const eta = new EtaEstimator();
    assert.equal(eta.estimate({ sec: 0, ended: 0, queued: 100 }), null, 'no rate yet');
    assert.equal(eta.estimate({ sec: 10, ended: 20, queued: 80 }), 40);
    // One host holds most of it: 60 URIs 3 s apart need 180 s whatever the rate so far.
    assert.equal(eta.estimate({ sec: 20, ended: 40, queued: 60 }, politenessFloorSec(60, minimal())), 180);
    assert.equal(eta.estimate({ sec: 25, ended: 40, queued: 0 }), 0);
  });

  it('measures the rate over the last minute, not the whole run', () => {
    const eta = new EtaEstimator();
    eta.estimate({ sec: 0, ended: 0, queued: 1000 });
    eta.estimate({ sec: 30, ended: 600, queued: 1000 }); // a fast start
    for (let sec = 60; sec <= 200; sec += 10) eta.estimate({ sec, ended: 600 + (sec - 30), queued: 500 });
    // Since the burst left the window: 1 URI/s.
    assert.equal(Math.round(eta.estimate({ sec: 210, ended: 780, queued: 500 })!), 500);
  });

  it('reads as minutes and hours', () => {
    assert.equal(formatEta(0.2), '~1 s');
    assert.equal(formatEta(3470), '~58 min');
    assert.equal(formatEta(7500), '~2 h 05 min');
    assert.equal(formatEta(3 * 86400 + 4 * 3600), '~3 d 4 h');
  });
});

describe('politeness cap note', () => {
  it('says so when the default delay holds a one-host crawl far below its workers', () => {
    assert.equal(politenessCapNote(minimal()), '1 host in scope, minDelayMs 3000: at most ~20 URIs/min (politeness.minDelayMs in the profile sets the delay)');
  });

  it('says nothing when the hosts can keep the workers busy', () => {
    assert.equal(politenessCapNote(minimal({ politeness: { minDelayMs: 20 } })), null);
    assert.equal(politenessCapNote(minimal({ workers: 1, politeness: { minDelayMs: 500 } })), null);
  });
});
