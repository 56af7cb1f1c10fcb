/**
 * The parts of browser capture that need no Chromium: the profile's
 * `browser` block (defaults, refusals, per-override settings), the
 * responses renders are served (waiters, failures, eviction, POST keys),
 * network quiet, and a crawl with the block absent, which starts no
 * browser and reports nothing of one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Overrides } from '../../src/overrides/overrides.js';
import { BrowserSettings } from '../../src/browser/browser-settings.js';
import { ArchivedResponses, isArchived, requestKey } from '../../src/browser/archived-responses.js';
import { NetworkIdle } from '../../src/browser/network-idle.js';
import { postIndexFields } from '../../src/browser/post-key.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { captureIo } from '../helpers/capture.js';
import { BASE_PROFILE, pathErrorOf } from '../helpers/profile-errors.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { startJsWeb, type JsWeb } from './js-web.js';
import { chromiumOf } from './processes.js';

describe('the profile’s browser block', () => {
  test('absent: filled in with the documented defaults, off', () => {
    const p = validateProfile(BASE_PROFILE, 'p.json');
    assert.deepEqual(p.browser, { enabled: false, pageTimeoutMs: 30000, idleMs: 500, behaviors: ['autoscroll'], behaviorTimeoutMs: 10000, maxRequestsPerPage: 500, executable: 'chromium', tabs: 2 });
    assert.equal(new BrowserSettings(p, new Overrides(p)).anyEnabled, false);
  });

  test('unknown keys, bad values and a browser-wide field in an override are refused with their path', () => {
    assert.equal(pathErrorOf({ ...BASE_PROFILE, browser: { enabeld: true } }).path, '/browser');
    assert.equal(pathErrorOf({ ...BASE_PROFILE, browser: { tabs: 0 } }).path, '/browser/tabs');
    assert.equal(pathErrorOf({ ...BASE_PROFILE, browser: { behaviors: ['wiggle'] } }).path, '/browser/behaviors/0');
    assert.equal(pathErrorOf({ ...BASE_PROFILE, overrides: [{ match: 'example.org', browser: { tabs: 4 } }] }).path, '/overrides/0/browser');
  });

  test('depth-first order is refused with a browser (a page would hold the queue its subrequests need)', () => {
    assert.equal(pathErrorOf({ ...BASE_PROFILE, browser: { enabled: true }, frontier: { order: 'depth-first' } }).path, '/browser/enabled');
  });

  test('an override enables rendering for its host only, changing only what it names', () => {
    const p = validateProfile({ ...BASE_PROFILE, browser: { idleMs: 300 }, overrides: [{ match: 'js.example.org', browser: { enabled: true, pageTimeoutMs: 5000 } }] }, 'p.json');
    const s = new BrowserSettings(p, new Overrides(p));
    assert.equal(s.anyEnabled, true);
    assert.equal(s.forUrl('https://example.org/').enabled, false);
    const js = s.forUrl('https://js.example.org/app');
    assert.deepEqual([js.enabled, js.pageTimeoutMs, js.idleMs], [true, 5000, 300]);
  });
});

describe('ArchivedResponses', () => {
  const response = (url: string, bytes: number) => ({ url, status: 200, headers: [['Content-Type', 'text/plain']] as const, body: Buffer.alloc(bytes, 1) });

  test('a waiting render gets the capture once it is archived, by the seen-filter form of its URL', async () => {
    const a = new ArchivedResponses();
    const waiting = a.wait(requestKey('http://h.test/a?b=1#x'), new AbortController().signal);
    assert.equal(a.wanted(requestKey('http://h.test/a?b=1')), true);
    a.archived(requestKey('http://h.test/a?b=1'), response('http://h.test/a?b=1', 3));
    const got = await waiting;
    assert.ok(got !== null && isArchived(got));
    assert.equal(got.body.length, 3);
  });

  test('a failure answers the waiting renders with its status; an abort with null', async () => {
    const a = new ArchivedResponses();
    const refused = a.wait('k1', new AbortController().signal);
    a.failed('k1', -9998);
    assert.deepEqual(await refused, { status: -9998 });
    const stop = new AbortController();
    const given = a.wait('k2', stop.signal);
    stop.abort();
    assert.equal(await given, null);
    assert.equal(a.wanted('k2'), false);
  });

  test('kept bodies are bounded: the least recently served go first', () => {
    const a = new ArchivedResponses(10);
    a.archived('a', response('http://h.test/a', 4));
    a.archived('b', response('http://h.test/b', 4));
    assert.ok(a.known('a'));
    a.archived('c', response('http://h.test/c', 4));
    assert.ok(a.known('a'));
    assert.equal(a.known('b'), undefined);
  });

  test('two POSTs to one URL with other bodies have other keys; a POST never has its GET’s', () => {
    const url = 'http://h.test/api';
    const one = requestKey(url, { body: Buffer.from('{"q":1}').toString('base64') });
    const two = requestKey(url, { body: Buffer.from('{"q":2}').toString('base64') });
    assert.notEqual(one, two);
    assert.notEqual(one, requestKey(url));
  });

  test('a JSON POST is indexed as wabac looks it up: its fields as query parameters', () => {
    assert.deepEqual(postIndexFields('http://h.test/api', { body: Buffer.from('{"q":"widget","n":2}').toString('base64'), type: 'application/json' }), { method: 'POST', requestBody: 'q=widget&n=2' });
  });
});

describe('NetworkIdle', () => {
  test('quiet once at most one request stays open for idleMs; not while two are', async () => {
    const idle = new NetworkIdle();
    idle.opened();
    idle.opened();
    const stop = new AbortController();
    let quiet: boolean | null = null;
    const waiting = idle.quiet(5, stop.signal).then((q) => (quiet = q));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(quiet, null, 'quiet with two requests open');
    idle.closed();
    assert.equal(await waiting, true);
  });

  test('requests coming and going one at a time do not put the quiet off', async () => {
    const idle = new NetworkIdle();
    const stop = new AbortController();
    let quiet = false;
    const waiting = idle.quiet(50, stop.signal).then((q) => (quiet = q));
    // A beacon: one request at a time, far more often than the quiet time, until the wait ends.
    let beacons = 0;
    while (beacons < 1000 && !quiet) {
      idle.opened();
      await new Promise((r) => setTimeout(r, 2));
      idle.closed();
      beacons++;
    }
    assert.equal(await waiting, true);
    assert.ok(beacons < 1000, 'the quiet came only once the beacon stopped');
  });

  test('an abort ends the wait unquiet', async () => {
    const idle = new NetworkIdle();
    idle.opened();
    idle.opened();
    const stop = new AbortController();
    const waiting = idle.quiet(5, stop.signal);
    stop.abort();
    assert.equal(await waiting, false);
  });
});

describe('browser capture off', () => {
  let tmp: string;
  let web: JsWeb;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-browser-off-'));
    web = await startJsWeb();
  });
  after(async () => {
    await web.close();
    await rm(tmp, { recursive: true, force: true });
  });

  test('no browser starts, nothing is rendered, the JS-only links stay unfound', async () => {
    const profile = validateProfile(testProfileJson('off', [`${web.a}/`], path.join(tmp, 'off'), { workers: 2 }), 'off');
    // Looked for at every capture: a browser started for the crawl would be there while it runs.
    const looks: Array<Promise<number[]>> = [];
    const summary = await runCrawl({
      profile,
      stderr: captureIo().stderr,
      quiet: true,
      onStart: (crawl) => crawl.events.on('capture', () => void looks.push(chromiumOf(process.pid).then((c) => c.browsers))),
    });
    assert.equal(summary.browser, undefined);
    assert.ok(looks.length > 0);
    assert.deepEqual((await Promise.all(looks)).flat(), []);
    assert.ok(web.hits.some((h) => h.path === '/scroll'));
    assert.ok(!web.hits.some((h) => h.path === '/api/items.json' || h.path.startsWith('/item/')));
  });
});
