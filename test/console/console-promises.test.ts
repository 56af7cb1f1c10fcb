/**
 * Console promises of the README that no test kept: the speed history
 * behind the chart, paging queues and hosts with `after=`, `/api/page?ts=`,
 * stop with `abandonInFlight` through the API (and without it, a stop that
 * waits for the fetch in flight), the `failure` and `host` events of the
 * event stream, its cap of 40 droppable events a second with the count
 * skipped riding on the next progress, and the `interrupted` state of a job
 * whose crawl was killed. Crawls are held open by a page the test answers
 * (test/helpers/held-page.ts), never by hoping they are slow.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConsoleServer } from '../../src/console/console-server.js';
import { EventStream } from '../../src/console/event-stream.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { freePort } from '../helpers/redis-server.js';
import { fileLines, startCli, waitFor } from '../helpers/cli-child.js';
import { startHeldPage, type HeldPage } from '../helpers/held-page.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { ConsoleClient, readEvents, startCrawlConsole, until } from './console-harness.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const LONG = { fetchTimeoutMs: 600_000, maxRetries: 1, retryDelayMs: 10 };

const fx = fixtureWebSuite('archiver-console-promises-', { hosts: 4, pagesPerHost: 10, port: 0 });

async function withHeld<T>(fn: (held: HeldPage) => Promise<T>): Promise<T> {
  const held = await startHeldPage();
  try {
    return await fn(held);
  } finally {
    await held.close();
  }
}

describe('a running crawl in the console', () => {
  it('keeps a speed history of one sample a second, pages queues and hosts with after=, and finds a capture by ts', async () => {
    await withHeld(async (held) => {
      const c = await startCrawlConsole(fx.tmp, 'history', [...fx.web.seeds, held.url], { workers: 2, limits: LONG });
      try {
        await held.arrival();
        await until(async () => ((await c.client.get('/api/crawl')).json as { uris: number }).uris >= 20, '20 URIs');
        c.crawl.pause();
        await until(() => c.crawl.status().inProcess === 1, 'fetches in flight to finish but the held one');
        await until(async () => ((await c.client.get('/api/crawl/history')).json as unknown[]).length >= 3, 'three samples');
        const samples = (await c.client.get('/api/crawl/history')).json as Array<{ time: string; urisPerSec: number; pagesPerSec: number; kbPerSec: number }>;
        for (const s of samples) {
          assert.deepEqual(Object.keys(s).sort(), ['kbPerSec', 'pagesPerSec', 'time', 'urisPerSec']);
          assert.match(s.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          assert.ok(s.urisPerSec >= 0 && s.pagesPerSec >= 0 && s.kbPerSec >= 0);
        }
        const times = samples.map((s) => Date.parse(s.time));
        for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, 'in time order');
        assert.ok(samples.some((s) => s.urisPerSec > 0), 'the crawl had speed');

        // Paging: pages of two, each after the last key of the one before, make up the whole list once.
        for (const [what, keyOf] of [['queues', (q: Record<string, string>) => q['key']!], ['hosts', (h: Record<string, string>) => h['host']!]] as const) {
          const whole = ((await c.client.get(`/api/${what}?limit=500`)).json as Array<Record<string, string>>).map(keyOf);
          assert.ok(whole.length >= 4, `${what}: ${whole.join(' ')}`);
          const paged: string[] = [];
          for (let after: string | null = null; ;) {
            const page: string[] = ((await c.client.get(`/api/${what}?limit=2${after === null ? '' : `&after=${encodeURIComponent(after)}`}`)).json as Array<Record<string, string>>).map(keyOf);
            assert.ok(page.length <= 2);
            if (page.length === 0) break;
            paged.push(...page);
            after = page.at(-1)!;
          }
          assert.deepEqual(paged, [...whole].sort(), what);
        }

        // /api/page from the journal while the crawl runs: by URL (the latest), by its ts, not by another ts.
        const seed = fx.web.seeds[0]!;
        const latest = await c.client.get(`/api/page?url=${encodeURIComponent(seed)}`);
        assert.equal(latest.status, 200, latest.text);
        const ts = (latest.json as { ts: string }).ts;
        assert.match(ts, /^\d{14}$/);
        const exact = await c.client.get(`/api/page?url=${encodeURIComponent(seed)}&ts=${ts}`);
        assert.equal(exact.status, 200);
        assert.equal((exact.json as { ts: string; url: string }).ts, ts);
        assert.equal((await c.client.get(`/api/page?url=${encodeURIComponent(seed)}&ts=19990101000000`)).status, 404, 'no capture at that time');
        assert.equal((await c.client.get(`/api/page?url=${encodeURIComponent(seed)}&ts=1999`)).status, 400);

        held.release();
        c.crawl.resume();
        await c.crawl.done;
        c.catalog.detach(c.name);
        // A finished job's history is read back from its crawl.log (issue 28): no longer the live samples, still its speed.
        const after = (await c.client.get('/api/crawl/history?job=history')).json as { urisPerSec: number }[];
        assert.ok(after.length > 0 && after.some((p) => p.urisPerSec > 0), `a finished job's history from its crawl.log: ${JSON.stringify(after).slice(0, 200)}`);
        // From the index, once the crawl is over: the same.
        assert.equal((await c.client.get(`/api/page?job=history&url=${encodeURIComponent(seed)}&ts=${ts}`)).status, 200);
        assert.equal((await c.client.get(`/api/page?job=history&url=${encodeURIComponent(seed)}&ts=19990101000000`)).status, 404);
      } finally {
        await c.close();
      }
    });
  });

  it('stops with abandonInFlight through the API without waiting for the fetch in flight; a plain stop waits for it', async () => {
    await withHeld(async (held) => {
      const c = await startCrawlConsole(fx.tmp, 'abandon', [held.url, ...fx.web.seeds], { workers: 2, limits: LONG });
      try {
        await held.arrival();
        const stop = await c.client.post('/api/crawl/stop', { abandonInFlight: true });
        assert.equal(stop.status, 200, stop.text);
        assert.deepEqual(stop.json, { state: 'stopping' });
        // The held page is never answered: the crawl ends all the same.
        const summary = await c.crawl.done;
        assert.equal(c.crawl.status().state, 'finished');
        assert.notEqual(summary.status, 'FINISHED', 'ended by the operator');
        const lines = await fileLines(path.join(c.dir, 'logs', 'crawl.log'));
        assert.ok(!lines.some((l) => l.split(/\s+/)[3] === held.url && Number(l.split(/\s+/)[1]) > 0), 'the held page was not captured');
      } finally {
        await c.close();
      }
    });
    await withHeld(async (held) => {
      const c = await startCrawlConsole(fx.tmp, 'waits', [held.url, ...fx.web.seeds], { workers: 2, limits: LONG });
      try {
        await held.arrival();
        assert.deepEqual((await c.client.post('/api/crawl/stop', {})).json, { state: 'stopping' });
        await until(() => c.crawl.status().inProcess === 1, 'every fetch but the held one to finish');
        assert.equal(c.crawl.status().state, 'stopping', 'still stopping while the held fetch is in flight');
        held.release();
        await c.crawl.done;
        const lines = await fileLines(path.join(c.dir, 'logs', 'crawl.log'));
        assert.ok(lines.some((l) => l.split(/\s+/)[3] === held.url && l.split(/\s+/)[1] === '200'), 'the fetch in flight finished and was logged');
      } finally {
        await c.close();
      }
    });
  });

  it('streams failure and host events: a host that refuses connections waits, is closed, and its seed fails', async () => {
    const port = await freePort();
    const dead = `http://127.0.0.1:${port}/`;
    // robots.txt ignored: an unreachable robots.txt is retried minutes apart (issue 28), the seed retryDelayMs apart.
    const c = await startCrawlConsole(fx.tmp, 'refused', [dead], { workers: 1, robots: { policy: 'ignore' }, limits: { fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10 } });
    c.crawl.pause();
    const stream = await readEvents(c.server.origin, c.server.token);
    try {
      c.crawl.resume();
      await c.crawl.done;
      await until(() => (stream.events.get('state') ?? []).some((e) => e['state'] === 'finished'), 'the finished state event');
      const hosts = stream.events.get('host') ?? [];
      const waiting = hosts.find((e) => e['waiting'] !== undefined);
      assert.ok(waiting, `a host event with waiting: ${JSON.stringify(hosts)}`);
      assert.equal(waiting['host'], `127.0.0.1:${port}`);
      const w = waiting['waiting'] as { reason: string; until: string; retry: number; of: number };
      assert.equal(typeof w.reason, 'string');
      assert.match(w.until, /Z$/);
      assert.ok(w.retry >= 1 && w.retry <= w.of, `retry ${w.retry} of ${w.of}`);
      const closed = hosts.find((e) => e['closed'] !== undefined);
      assert.ok(closed, `a host event with closed: ${JSON.stringify(hosts)}`);
      assert.ok((closed['closed'] as { status: number }).status < 0);
      const failures = stream.events.get('failure') ?? [];
      const seedFailure = failures.find((f) => f['url'] === dead);
      assert.ok(seedFailure, `a failure event for the seed: ${JSON.stringify(failures)}`);
      assert.ok((seedFailure['status'] as number) < 0);
      assert.equal(seedFailure['hopPath'], '');
    } finally {
      await stream.close();
      await c.close();
    }
  });
});

describe('the event stream cap', () => {
  let server: Server;
  let stream: EventStream | undefined;
  let origin: string;
  let clock = 1_000_000;
  before(async () => {
    server = createServer((_req, res) => {
      stream = new EventStream(res, () => clock);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    stream?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends at most 40 captures and failures a second; the count skipped rides on the next progress', async () => {
    const reader = await readEvents(origin, 'unused', '/');
    try {
      await until(() => stream !== undefined, 'the stream');
      for (let i = 0; i < 70; i++) stream!.offer(i % 2 === 0 ? 'capture' : 'failure', { i });
      stream!.send('progress', { n: 1 });
      clock += 999;
      stream!.offer('capture', { i: 70 });
      stream!.send('progress', { n: 2 });
      clock += 1;
      for (let i = 71; i < 81; i++) stream!.offer('capture', { i });
      stream!.send('progress', { n: 3 });
      await until(() => (reader.events.get('progress') ?? []).length === 3, 'three progress events');
      const sent = [...(reader.events.get('capture') ?? []), ...(reader.events.get('failure') ?? [])].map((e) => e['i'] as number).sort((a, b) => a - b);
      assert.deepEqual(sent, [...Array.from({ length: 40 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 71 + i)], 'the first 40 of the first second, then the next second afresh');
      assert.deepEqual(reader.events.get('progress'), [{ n: 1, skipped: 30 }, { n: 2, skipped: 1 }, { n: 3 }]);
    } finally {
      await reader.close();
    }
  });
});

describe('a job whose crawl was killed', () => {
  it('is listed as interrupted, with no end and no report', async () => {
    await withHeld(async (held) => {
      const root = path.join(fx.tmp, 'jobs-killed');
      const file = path.join(fx.tmp, 'killed.json');
      await writeFile(file, JSON.stringify(testProfileJson('killed', [...fx.web.seeds, held.url], path.join(root, 'killed'), { workers: 2, limits: LONG })));
      const run = startCli(['run', file, '--quiet']);
      await held.arrival();
      assert.ok(await waitFor(async () => (await fileLines(path.join(root, 'killed', 'logs', 'crawl.log'))).length > 0, 60_000), 'the crawl logged something');
      run.child.kill('SIGKILL');
      assert.equal(await run.exit, null);
      const server = await ConsoleServer.start({ catalog: new JobCatalog({ root }), port: 0 });
      try {
        const client = new ConsoleClient(server.origin, server.token);
        const jobs = (await client.get('/api/jobs')).json as Array<{ name: string; state: string; endReason: unknown; ended: unknown; started: string | null }>;
        assert.deepEqual(jobs.map((j) => [j.name, j.state, j.endReason, j.ended]), [['killed', 'interrupted', null, null]]);
        assert.match(jobs[0]!.started ?? '', /Z$/);
        const status = await client.get('/api/crawl?job=killed');
        assert.equal(status.status, 404);
        assert.match(status.text, /interrupted: archiver run resumes it/);
      } finally {
        await server.close();
      }
    });
  });
});
