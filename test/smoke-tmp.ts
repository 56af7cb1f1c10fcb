import { writeFile, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FixtureWeb } from '../src/demo/fixture-web.js';
import { testProfileJson } from './helpers/test-profile.js';
import { startRedis } from './helpers/redis-server.js';
import { startCli } from './helpers/cli-child.js';
const redis = await startRedis();
const web = await FixtureWeb.start({ hosts: 5, pagesPerHost: 14, port: 0, latencyMs: 2 });
for (let k = 0; k < 1; k++) {
  const dir = '/tmp/smoke/dist' + Date.now();
  const file = dir + '.json';
  await writeFile(file, JSON.stringify(testProfileJson('d' + k, web.seeds, dir, { politeness: { delayFactor: 0, minDelayMs: 50, maxDelayMs: 50 }, workers: 3 })));
  web.takeRequests();
  const nodes = ['n1', 'n2', 'n3'].map((n) => startCli(['run', file, '--store', redis.spec(), '--node', n]));
  const codes = await Promise.all(nodes.map((n) => n.exit));
  const reqs = web.takeRequests();
  const logs: Record<string, string> = {};
  for (const l of await readdir(path.join(dir, 'logs'))) logs[l] = await readFile(path.join(dir, 'logs', l), 'utf8');
  const who = (p: string) => Object.entries(logs).filter(([, t]) => t.includes(p + ' ')).map(([l]) => l).join(',');
  const by = new Map<string, typeof reqs>();
  for (const r of reqs) (by.get(r.host) ?? by.set(r.host, []).get(r.host)!).push(r);
  let bad = 0;
  for (const list of by.values()) { list.sort((a, b) => a.startMs - b.startMs); for (let i = 1; i < list.length; i++) { const g = list[i]!.startMs - list[i - 1]!.endMs; if (g < 49) { bad++; console.log('gap', g.toFixed(1), list[i-1]!.host, list[i - 1]!.path, who(list[i-1]!.path), '->', list[i]!.path, who(list[i]!.path)); } } }
  const { execSync } = await import('node:child_process');
  console.log(execSync(`redis-cli -p ${redis.port} HGETALL 'arc:{d${k}}:meta'`).toString());
  for (const n of nodes) console.log(n.stderr().split('\n').filter((l) => l.startsWith('NODES') || l.startsWith('LEAVE')).join('\n').slice(0, 400));
  console.log(execSync(`redis-cli -p ${redis.port} ZRANGE 'arc:{d${k}}:nodes' 0 -1 WITHSCORES`).toString());
  console.log('run', k, codes, 'requests', reqs.length, 'bad', bad);
}
await web.close(); await redis.dispose();
