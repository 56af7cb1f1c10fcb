/**
 * An exclusion added on one node of a running crawl is obeyed by the other
 * node too (README, "The crawl handle acts on the whole crawl": links
 * refused, queued URIs dropped as they come up, on every node within a
 * second). crawl-wide.test.ts shows the follower's parts over Redis; no
 * test showed two running `archiver run` processes doing it (issue 29 §4,
 * "exclusions across nodes"). Here two real nodes crawl the loopback
 * fixture web through a real redis-server; the exclusion goes in through
 * n1's console only. Judged from outside: n2's own crawl.log must show it
 * dropping or refusing matching URLs (without the crawl-wide follower it
 * never hears of the exclusion and fetches them), and once both nodes have
 * shown that, the web server's request log must hold no request for a
 * matching URL, and some matching URLs of the web are never fetched.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { fileLines, nowMs, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { needsRedis } from '../helpers/redis-server.js';
import { nodesWeb } from '../helpers/nodes-web.js';
import { testProfileJson } from '../helpers/test-profile.js';

/** Odd-numbered articles (`/s/<section>/<slug>-<n>.html`): about half of every host's pages. */
const EXCLUDED = '-\\d*[13579]\\.html$';
const excluded = new RegExp(EXCLUDED);

/** crawl.log fields: status is the 2nd, the URL the 4th, annotations the 12th. */
function dropsIn(lines: readonly string[]): string[] {
  return lines
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => (f[1] === '-6000' && f[11] === 'deletedByOperator') || (f[1] === '-5000' && f[11] === 'excluded'))
    .map((f) => f[3]!);
}

describe('an exclusion added on one node of a crawl of two processes', needsRedis(), () => {
  // 200 ms apart per host, 4 hosts of ~50 URLs: far from done when the exclusion goes in.
  const nw = nodesWeb('archiver-nodes-exclusion-', 40);

  it('is obeyed by the other node: it drops or refuses matching URLs, and no matching URL is fetched once both have', { timeout: 240_000 }, async () => {
    const { tmp, redis, web, held, children } = nw;
    const name = 'excluding';
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify(
        testProfileJson(name, [held.url, ...web.seeds], dir, {
          politeness: { delayFactor: 0, minDelayMs: 200, maxDelayMs: 200 },
          limits: { fetchTimeoutMs: 300_000, maxRetries: 1, retryDelayMs: 10 },
          workers: 3,
        }),
      ),
    );
    const start = (id: string, args: string[] = []): CliChild => {
      const c = startCli(['run', file, '--store', redis.spec(0), '--node', id, '--quiet', ...args]);
      children.push(c);
      return c;
    };
    const n1 = start('n1', ['--console', '--console-port', '0']);
    let consoleOut = '';
    n1.child.stdout!.removeAllListeners('data');
    n1.child.stdout!.on('data', (d: Buffer) => (consoleOut += d.toString()));
    const n2 = start('n2');
    const logs = ['n1', 'n2'].map((id) => path.join(dir, 'logs', `crawl-${id}.log`));
    await held.arrival();
    const counts = async () => (await Promise.all(logs.map(fileLines))).map((l) => l.length);
    assert.ok(await waitFor(async () => (await counts()).every((n) => n >= 1), 120_000), `both nodes crawl: ${(await counts()).join(', ')}; ${[n1, n2].map((n) => n.stderr()).join(' | ')}`);

    const m = /console {2}(http:\/\/\S+)\/#token=(\S+)/.exec(consoleOut);
    assert.ok(m !== null, `n1's console line: ${consoleOut}`);
    const res = await fetch(`${m[1]}/api/crawl/exclude`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${m[2]}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ regex: EXCLUDED }),
    });
    const answer = await res.text();
    assert.equal(res.status, 200, answer);
    assert.equal((JSON.parse(answer) as { added: boolean }).added, true, answer);

    // Each node shows it obeys: a matching URL dropped from its queues or refused as a link.
    // n2 heard of the exclusion only through the crawl's records in Redis.
    const shown = await waitFor(async () => (await Promise.all(logs.map(fileLines))).every((lines) => dropsIn(lines).length > 0), 120_000, 20);
    const [drops1, drops2] = (await Promise.all(logs.map(fileLines))).map(dropsIn);
    assert.ok(shown, `both nodes drop or refuse matching URLs: n1 ${drops1!.length}, n2 ${drops2!.length}`);
    const bothObey = nowMs();
    assert.ok([...drops1!, ...drops2!].every((u) => excluded.test(u)), `only matching URLs dropped: ${[...drops1!, ...drops2!].join(' ')}`);

    held.release();
    assert.deepEqual(await Promise.all([n1.exit, n2.exit]), [0, 0], [n1, n2].map((n) => n.stderr()).join('\n'));

    // The web server's log: nothing matching asked for after both nodes showed they obey.
    const late = web.requests.filter((r) => r.startMs > bothObey && excluded.test(r.path)).map((r) => `${r.host}${r.path}`);
    assert.deepEqual(late, [], 'matching URLs fetched after both nodes took the exclusion in');
    // And the exclusion took something away: matching URLs the web holds that no node fetched.
    const fetched = new Set(web.requests.map((r) => `${r.host}${r.path}`));
    const spared = web.expectedUrls().reachable.filter((u) => excluded.test(u) && !fetched.has(new URL(u).host + new URL(u).pathname));
    assert.ok(spared.length > 0, 'some matching URLs were never fetched');
  });
});
