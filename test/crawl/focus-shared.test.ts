/**
 * One topic for a crawl of several processes on Redis (issue 26: a focused
 * profile with a shared store was refused). Three `archiver run --store
 * redis://… --node nX` processes crawl the labelled topical web focused on
 * tea by keywords, each with a third of the page
 * budget of one process doing the same crawl alone; their harvest, judged
 * from the web server's request log and the pages' labels, is within 10%
 * of the one process's over as many pages — and far above the topic's
 * share of the web. Each
 * node writes its own focus report. Training URLs with a shared store are
 * refused with a one-line error naming the field.
 */
import assert from 'node:assert/strict';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { harvestOf } from '../helpers/harvest.js';
import type { RequestLogEntry } from '../../src/demo/request-log.js';
import { startTopicalWeb, type StartedTopicalWeb } from '../helpers/topical-web.js';
import { startCli } from '../helpers/cli-child.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testProfileJson } from '../helpers/test-profile.js';

const BUDGET = 120;
const KEYWORDS = ['绿茶', '红茶', '乌龙茶', '茶叶', '冲泡'];

describe('a focused crawl of three processes on Redis', needsRedis(), () => {
  let tmp: string;
  let redis: TestRedis;
  let web: StartedTopicalWeb;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-nodes-'));
    redis = await startRedis();
    web = await startTopicalWeb({ pagesPerHost: 60, firstAddress: 170 });
  });
  after(async () => {
    await web?.server.close();
    await redis?.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  /** The requests up to the `n`th labelled page served 200 (in the order they started). */
  function firstPages(requests: readonly RequestLogEntry[], n: number): RequestLogEntry[] {
    const out: RequestLogEntry[] = [];
    let pages = 0;
    for (const r of [...requests].sort((a, b) => a.startMs - b.startMs)) {
      if (pages >= n) break;
      out.push(r);
      if (r.status === 200 && web.labels.has(`http://${r.host}${r.path}`)) pages++;
    }
    return out;
  }

  async function profileFile(name: string, maxPages: number, focus: Record<string, unknown>): Promise<string> {
    const file = path.join(tmp, `${name}.json`);
    const json = testProfileJson(name, web.web.seeds, path.join(tmp, name), { workers: 4, limits: { maxPages, fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10 }, focus });
    await writeFile(file, JSON.stringify(json));
    return file;
  }

  it('shares one topic: three nodes on a third of the budget each harvest within 10% of one process', { timeout: 400_000 }, async () => {
    const focus = { keywords: KEYWORDS };
    web.server.takeRequests();
    const alone = startCli(['run', await profileFile('alone', BUDGET, focus), '--quiet']);
    assert.equal(await alone.exit, 0, alone.stderr());
    const oneRequests = web.server.takeRequests();
    const one = harvestOf(oneRequests, web.labels, 'tea', web.privateUrls);

    const file = await profileFile('shared', BUDGET / 3, focus);
    const nodes = ['n1', 'n2', 'n3'].map((id) => startCli(['run', file, '--store', redis.spec(), '--node', id, '--quiet']));
    const codes = await Promise.all(nodes.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    const three = harvestOf(web.server.takeRequests(), web.labels, 'tea', web.privateUrls);

    const share = [...web.labels.values()].filter((l) => l === 'tea').length / web.labels.size;
    assert.ok(one.rate >= share + 0.3, `one process: ${one.rate.toFixed(3)} (${one.relevant}/${one.pages}), tea is ${share.toFixed(2)} of the web`);
    // A node that reaches its budget ends the crawl, and nodes start at different times: the same budget is the same number of pages.
    assert.ok(three.pages >= 0.4 * one.pages, `three nodes fetched ${three.pages} pages, one process ${one.pages}`);
    const same = harvestOf(firstPages(oneRequests, three.pages), web.labels, 'tea', web.privateUrls);
    assert.ok(Math.abs(three.rate - same.rate) <= 0.1 * same.rate, `harvest: three nodes ${three.rate.toFixed(3)} (${three.relevant}/${three.pages}), one process ${same.rate.toFixed(3)} over its first ${same.pages} pages`);
    for (const id of ['n1', 'n2', 'n3']) await access(path.join(tmp, 'shared', 'reports', `focus-report-${id}.json`));
  });

  it('refuses training URLs with a shared store, naming the field', async () => {
    const file = await profileFile('training-urls', 10, { training: [web.web.seeds[0]!] });
    const node = startCli(['run', file, '--store', redis.spec(), '--node', 'n1', '--quiet']);
    assert.equal(await node.exit, 3, 'the exit code of an invalid profile');
    const lines = node.stderr().trim().split('\n');
    assert.equal(lines.length, 1, node.stderr());
    assert.match(lines[0]!, /\/focus\/training\/0/);
  });
});
