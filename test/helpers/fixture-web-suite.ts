/**
 * A test file's temporary directory and fixture web, made before its tests
 * and removed after them (node:test's before and after hooks): what a test
 * of a whole crawl starts from.
 */
import { after, before } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FixtureWeb, type FixtureWebOptions } from '../../src/demo/fixture-web.js';

export interface FixtureWebSuite {
  /** The temporary directory (jobs, profiles), once the tests run. */
  readonly tmp: string;
  /** The fixture web, serving once the tests run. */
  readonly web: FixtureWeb;
}

/** Registers the hooks; `prefix` names the temporary directory (`archiver-…-`). */
export function fixtureWebSuite(prefix: string, web: FixtureWebOptions): FixtureWebSuite {
  let dir: string | null = null;
  let served: FixtureWeb | null = null;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    served = await FixtureWeb.start(web);
  });
  after(async () => {
    await served?.close();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  });
  return {
    get tmp(): string {
      if (dir === null) throw new Error('fixtureWebSuite: the directory is made before the tests');
      return dir;
    },
    get web(): FixtureWeb {
      if (served === null) throw new Error('fixtureWebSuite: the web is started before the tests');
      return served;
    },
  };
}
