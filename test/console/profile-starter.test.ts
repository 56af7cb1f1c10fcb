/**
 * A job started from the console's profile form goes through the same door
 * as `archiver run` (Crawl.start's run policy). It used to skip it: a
 * finished job started again from the form was reopened and its reports
 * rewritten, where `archiver run` leaves it alone. Now the form answers 409
 * and the job's files stay as they were; and a start option the store
 * cannot take (a node id for a store of one process) is refused before
 * the job directory is touched.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { it } from 'node:test';
import { validateProfile } from '../../src/config/load-profile.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { ProfileStarter } from '../../src/console/profile-starter.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const fx = fixtureWebSuite('archiver-profile-starter-', { hosts: 1, pagesPerHost: 5, port: 0 });

it('leaves a finished job alone when the form starts it again: 409, its report unchanged', async () => {
  const profiles = path.join(fx.tmp, 'profiles');
  const jobs = path.join(fx.tmp, 'jobs');
  await mkdir(profiles, { recursive: true });
  await mkdir(jobs, { recursive: true });
  await writeFile(path.join(profiles, 'done.json'), JSON.stringify(testProfileJson('done', fx.web.seeds, 'anywhere', { workers: 2 })));
  const log = captureIo().stderr;
  const catalog = new JobCatalog({ root: jobs });
  const starter = new ProfileStarter({ profilesDir: profiles, catalog, log });
  const first = await starter.start('done.json');
  assert.equal((await first.crawl.done).status, 'FINISHED');
  const report = path.join(jobs, 'done', 'reports', 'crawl-report.json');
  const before = { text: await readFile(report, 'utf8'), mtimeMs: (await stat(report)).mtimeMs };
  // The catalog lets go of the job as the crawl's end settles (a few promise turns after `done`).
  await new Promise((r) => setImmediate(r));
  assert.equal(catalog.live('done'), null, 'the job is no longer running: a 409 below is not "running already"');
  await assert.rejects(starter.start('done.json'), { code: 'ARCHIVER_CONSOLE_CONFLICT', status: 409 });
  assert.equal(await readFile(report, 'utf8'), before.text);
  assert.equal((await stat(report)).mtimeMs, before.mtimeMs);
  assert.equal(catalog.live('done'), null, 'nothing was started');
});

it('refuses a node id for a store of one process before touching the job directory', async () => {
  const dir = path.join(fx.tmp, 'never');
  const profile = validateProfile(testProfileJson('never', fx.web.seeds, dir));
  await assert.rejects(Crawl.start(profile, { log: captureIo().stderr, quiet: true, node: 'a' }), { code: 'ARCHIVER_USAGE' });
  await assert.rejects(stat(dir), { code: 'ENOENT' });
});
