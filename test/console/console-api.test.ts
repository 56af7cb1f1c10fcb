/**
 * The console's JSON API over a crawl running in this process, checked
 * from outside through HTTP as the page and other tools use it: the status
 * moves; pause holds (the fixture server sees no request for 2 s) and
 * resume continues; added seeds are crawled; an exclusion stops matching
 * URLs (queued ones logged -6000); stop ends the crawl cleanly; queues,
 * hosts, the crawl.log tail and the event stream describe it meanwhile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { readEvents, sleep, startCrawlConsole, until, type RunningConsole } from './console-harness.js';

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-api-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 60, port: 0, latencyMs: 25 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Status {
  job: string;
  state: string;
  endReason: string | null;
  uris: number;
  pages: number;
  bytes: number;
  errors: number;
  queued: number;
  queues: Record<string, number>;
  urisPerSec: number;
  kbPerSec: number;
  elapsedSec: number;
  waiting: unknown[];
}

async function status(c: RunningConsole): Promise<Status> {
  const answer = await c.client.get('/api/crawl');
  assert.equal(answer.status, 200, answer.text);
  return answer.json as Status;
}

describe('the console API of a running crawl', () => {
  it('reports the status in the contract shape, and the counters move', async () => {
    const c = await startCrawlConsole(tmp, 'status', web.seeds, { workers: 2 });
    try {
      const first = await status(c);
      assert.equal(first.job, 'status');
      assert.deepEqual(Object.keys(first.queues).sort(), ['exhausted', 'inProcess', 'inactive', 'ready', 'retired', 'snoozed']);
      for (const key of ['uris', 'pages', 'bytes', 'errors', 'queued', 'urisPerSec', 'kbPerSec', 'elapsedSec'] as const) assert.equal(typeof first[key], 'number', key);
      assert.ok(['running', 'paused', 'stopping', 'finished'].includes(first.state));
      assert.ok(Array.isArray(first.waiting));
      await until(async () => (await status(c)).pages >= 10, '10 pages');
      const later = await status(c);
      assert.ok(later.uris > first.uris && later.bytes > first.bytes, 'counters moved');

      const queues = (await c.client.get('/api/queues?limit=10')).json as Array<Record<string, unknown>>;
      assert.ok(queues.length > 0);
      assert.deepEqual(Object.keys(queues[0]!).sort(), ['errors', 'fetched', 'key', 'queued', 'state', 'wakeAt']);
      const hosts = (await c.client.get('/api/hosts')).json as Array<Record<string, unknown>>;
      assert.deepEqual(hosts.map((h) => h['host']).sort(), web.origins.map((o) => new URL(o).host).sort());
      // The fixture's last host has no robots.txt (a 404 allows all); the others have rules.
      const lastHost = new URL(web.origins.at(-1)!).host;
      for (const h of hosts) {
        assert.deepEqual(Object.keys(h).sort(), ['bytes', 'closed', 'delayMs', 'errors', 'fetched', 'host', 'robots', 'waiting']);
        assert.equal(h['robots'], h['host'] === lastHost ? 'allowAll' : 'rules', String(h['host']));
        assert.equal(h['delayMs'], 0, 'the test profile has no politeness delay');
      }
      const byBytes = (await c.client.get('/api/hosts?sort=bytes&order=desc')).json as Array<{ bytes: number }>;
      assert.ok(byBytes[0]!.bytes >= byBytes[1]!.bytes);
      const log = (await c.client.get('/api/log?tail=5')).json as Array<Record<string, unknown>>;
      assert.equal(log.length, 5);
      assert.deepEqual(Object.keys(log[0]!).sort(), ['annotations', 'hopPath', 'mime', 'size', 'status', 'time', 'url', 'via']);
      assert.match(String(log[0]!['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const crawlLog = (await readFile(path.join(c.dir, 'logs', 'crawl.log'), 'utf8')).trimEnd().split('\n');
      const urls = new Set(crawlLog.map((l) => l.trim().split(/\s+/)[3]));
      for (const line of log) assert.ok(urls.has(String(line['url'])), 'a tail line is a crawl.log line');
      assert.equal((await c.client.get('/api/queues?state=nonsense')).status, 400);
    } finally {
      await c.close();
    }
  });

  it('pause holds (no request reaches the server for 2 s), resume continues, stop ends the crawl cleanly', async () => {
    const c = await startCrawlConsole(tmp, 'paused', web.seeds, { workers: 2 });
    try {
      await until(async () => (await status(c)).uris >= 8, '8 captures');
      const paused = await c.client.post('/api/crawl/pause');
      assert.equal(paused.status, 200);
      assert.deepEqual(paused.json, { state: 'paused' });
      await until(() => c.crawl.status().inProcess === 0, 'in-flight fetches to finish');
      const seen = web.requests.length;
      const held = await status(c);
      await sleep(2000);
      assert.equal(web.requests.length, seen, 'a request reached the server while paused');
      assert.equal((await status(c)).uris, held.uris);
      assert.equal((await status(c)).state, 'paused');
      assert.deepEqual((await c.client.post('/api/crawl/resume')).json, { state: 'running' });
      await until(() => web.requests.length > seen + 5, 'requests after resume');
      const stopped = await c.client.post('/api/crawl/stop');
      assert.deepEqual(stopped.json, { state: 'stopping' });
      const summary = await c.crawl.done;
      assert.equal(summary.status, 'ABORTED');
      const end = await status(c);
      assert.equal(end.state, 'finished');
      assert.equal(end.endReason, 'ABORTED');
      assert.deepEqual((await c.client.post('/api/crawl/resume')).json, { state: 'finished' }, 'nothing to resume once finished');
    } finally {
      await c.close();
    }
  });

  it('added seeds are crawled', async () => {
    const [first, second] = web.seeds as [string, string];
    const c = await startCrawlConsole(tmp, 'seeded', [first], { workers: 2 });
    try {
      const added = await c.client.post('/api/crawl/seeds', { urls: [second, 'mailto:x@example.org'] });
      assert.equal(added.status, 200);
      assert.deepEqual(added.json, { added: [second], rejected: [{ url: 'mailto:x@example.org', reason: 'not an absolute http(s) URL' }] });
      assert.equal((await c.client.post('/api/crawl/seeds', { urls: 'nope' })).status, 400);
      await c.crawl.done;
      const secondHost = new URL(second).host;
      const log = await readFile(path.join(c.dir, 'logs', 'crawl.log'), 'utf8');
      const fetched = log.split('\n').filter((l) => l.includes(` http://${secondHost}/`) && / 200 /.test(l));
      assert.ok(fetched.length > 10, `the added seed's host was crawled (${fetched.length} lines)`);
    } finally {
      await c.close();
    }
  });

  it('an exclusion stops matching URLs: queued ones are logged -6000, new ones refused', async () => {
    const c = await startCrawlConsole(tmp, 'excluded', web.seeds, { workers: 2 });
    try {
      await until(async () => (await status(c)).uris >= 6, '6 captures');
      c.crawl.pause();
      await until(() => c.crawl.status().inProcess === 0, 'in-flight fetches to finish');
      const excluded = await c.client.post('/api/crawl/exclude', { regex: '/s/2/' });
      assert.equal(excluded.status, 200, excluded.text);
      assert.deepEqual(excluded.json, { regex: '/s/2/', added: true, dropped: 0 });
      assert.equal((await c.client.post('/api/crawl/exclude', { regex: '(' })).status, 400);
      assert.equal((await c.client.post('/api/crawl/exclude', { regex: '' })).status, 400);
      const since = web.requests.length;
      c.crawl.resume();
      await c.crawl.done;
      const after = web.requests.slice(since);
      assert.ok(after.length > 20, 'the crawl went on');
      assert.deepEqual(after.filter((r) => r.path.includes('/s/2/')).map((r) => r.path), [], 'no excluded URL was fetched');
      const lines = (await readFile(path.join(c.dir, 'logs', 'crawl.log'), 'utf8')).trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      const dropped = lines.filter((f) => f[1] === '-6000');
      assert.ok(dropped.length > 0, 'queued URIs were dropped');
      for (const f of dropped) {
        assert.match(f[3]!, /\/s\/2\//);
        assert.equal(f[11], 'deletedByOperator');
      }
      const refused = lines.filter((f) => f[1] === '-5000' && f[11] === 'excluded');
      // Links to /s/2/ found after the exclusion, not seen before it, are refused at scheduling.
      assert.ok(refused.length > 0, 'links found after the exclusion were refused');
      assert.ok(refused.every((f) => /\/s\/2\//.test(f[3]!)), refused.map((f) => f[3]).join(' '));
      assert.equal((await c.client.post('/api/crawl/exclude', { regex: 'x' })).status, 409, 'the crawl has ended');
    } finally {
      await c.close();
    }
  });

  it('streams status, progress, captures and state changes as Server-Sent Events', async () => {
    const c = await startCrawlConsole(tmp, 'events', web.seeds, { workers: 2 });
    try {
      const { events, close } = await readEvents(c.server.origin, c.server.token);
      await until(() => (events.get('progress')?.length ?? 0) >= 2 && (events.get('capture')?.length ?? 0) >= 3, 'progress and capture events');
      assert.equal(events.get('status')?.length, 1);
      const progress = events.get('progress')!.at(-1)!;
      assert.equal((progress['status'] as Record<string, unknown>)['job'], 'events');
      assert.equal(typeof (progress['sample'] as Record<string, unknown>)['pagesPerSec'], 'number');
      const capture = events.get('capture')![0]!;
      assert.equal(typeof capture['url'], 'string');
      assert.match(String(capture['time']), /Z$/);
      c.crawl.pause();
      await until(() => (events.get('state') ?? []).some((e) => e['state'] === 'paused'), 'a state event');
      c.crawl.resume();
      await close();
    } finally {
      await c.close();
    }
  });
});
