/**
 * What a crawl of several processes is judged by, from outside: the web
 * server's own log (at most one request in flight per host, the minimum
 * gap between a host's requests across all nodes), and the union of the
 * nodes' WARCs (which URLs, how often; every gzip member one whole record).
 * Shared by the tests on one Redis and on a Redis Cluster.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestLogEntry } from '../../src/demo/fixture-web.js';
import { fileLines } from './cli-child.js';
import { gzipMembers } from './gzip-members.js';
import { readWarcDir } from './warc-read.js';

/** Every response/revisit in the union of the job's WARCs, by URL → count. */
export async function archived(dir: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const r of await readWarcDir(path.join(dir, 'warcs'))) {
    if (r.type !== 'response' && r.type !== 'revisit') continue;
    counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
  }
  return counts;
}

/** Which nodes' crawl.log name a URL as fetched (for failure messages). */
export async function whoFetched(dir: string, url: string): Promise<string> {
  const out: string[] = [];
  for (const l of await readdir(path.join(dir, 'logs'))) {
    for (const line of await fileLines(path.join(dir, 'logs', l))) if (line.split(/\s+/)[3] === url) out.push(`${l}@${line.slice(11, 23)} fetch ${line.split(/\s+/)[8]}`);
  }
  return out.join(',');
}

export function checkPoliteness(requests: readonly RequestLogEntry[], minDelayMs: number, dir?: string): Promise<void> | void {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const r of requests) (byHost.get(r.host) ?? byHost.set(r.host, []).get(r.host)!).push(r);
  for (const [host, list] of byHost) {
    list.sort((a, b) => a.startMs - b.startMs);
    const overlapping = list.filter((r) => r.inFlightAtStart > 1);
    if (overlapping.length > 0 && dir !== undefined) {
      // On failure: each request that started while another was in flight, the one(s) it overlapped, and who fetched them.
      const b = overlapping[0]!;
      const during = list.filter((r) => r !== b && r.startMs <= b.startMs && r.endMs >= b.startMs);
      return (async () => {
        const told = await Promise.all([b, ...during].map(async (r) => `${r.path} [${new Date(r.startMs).toISOString()} .. ${new Date(r.endMs).toISOString()}, status ${r.status}] by ${await whoFetched(dir, `http://${host}${r.path}`)}`));
        assert.fail(`${host}: ${overlapping.length} requests started while another was in flight: ${told.join(' / ')}`);
      })();
    }
    assert.equal(overlapping.length, 0, `${host}: ${overlapping.length} requests started while another was in flight`);
    for (let i = 1; i < list.length; i++) {
      const gap = list[i]!.startMs - list[i - 1]!.endMs;
      if (gap < minDelayMs - 1 && dir !== undefined) {
        const [a, b] = [list[i - 1]!, list[i]!];
        return (async () => {
          const detail = `${await whoFetched(dir, `http://${host}${a.path}`)} -> ${await whoFetched(dir, `http://${host}${b.path}`)} (status ${a.status}, ${new Date(a.endMs).toISOString()})`;
          assert.fail(`${host}: ${gap.toFixed(1)} ms between ${a.path} and ${b.path}: ${detail}`);
        })();
      }
      assert.ok(gap >= minDelayMs - 1, `${host}: ${gap.toFixed(1)} ms between ${list[i - 1]!.path} and ${list[i]!.path}`);
    }
  }
}

export async function checkWarcsWhole(dir: string): Promise<void> {
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
