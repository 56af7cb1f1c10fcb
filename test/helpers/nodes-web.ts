/**
 * What a test of several `archiver run` nodes on one Redis sets up around
 * its crawl: a temporary directory, a real redis-server, the fixture web, a
 * held page (keeps the crawl open while the test looks at it), and the CLI
 * children it starts, killed after each test. Call inside `describe`: the
 * hooks are registered there, and the fields are set once `before` ran.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import type { CliChild } from './cli-child.js';
import { startHeldPage, type HeldPage } from './held-page.js';
import { startRedis, type TestRedis } from './redis-server.js';

export interface NodesWeb {
  tmp: string;
  redis: TestRedis;
  web: FixtureWeb;
  held: HeldPage;
  /** Children to kill (SIGKILL) after each test, if still running. */
  children: CliChild[];
}

export function nodesWeb(prefix: string, pagesPerHost: number): NodesWeb {
  const s = { children: [] as CliChild[] } as NodesWeb;
  before(async () => {
    s.tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
    s.redis = await startRedis();
    s.web = await FixtureWeb.start({ hosts: 4, pagesPerHost, port: 0, latencyMs: 2 });
    s.held = await startHeldPage();
  });
  afterEach(() => {
    for (const c of s.children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await s.held?.close();
    await s.web?.close();
    await s.redis?.dispose();
    if (s.tmp !== undefined) await rm(s.tmp, { recursive: true, force: true });
  });
  return s;
}
