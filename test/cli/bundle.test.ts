/**
 * The CLI runs from its bundle (scripts/bundle.mjs, src/cli/bundle-choice.ts):
 * bin.ts takes it only when it is fresher than the compiled modules, every
 * worker program a module starts has its entry in it, and a real crawl
 * through dist/src/cli/bin.js loads nothing of dist/src but bin.ts's own
 * chooser and what it runs before any flag is set (builtins-first.ts, which
 * loads node's modules only) — so the CLI tests, which all spawn that file,
 * test the bundle.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/core/package-root.js';
import { ENTRY_FILE, freshBundle } from '../../src/cli/bundle-choice.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-bundle-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const dirUrl = (dir: string): URL => pathToFileURL(dir + path.sep);

describe('the bundle chooser', () => {
  it('takes the bundle only when its entry is at least as new as the compiled one', async () => {
    const bundle = path.join(tmp, 'choice', 'bundle');
    const compiled = path.join(tmp, 'choice', 'compiled');
    await mkdir(compiled, { recursive: true });
    await writeFile(path.join(compiled, ENTRY_FILE), '');
    assert.equal(freshBundle(dirUrl(bundle), dirUrl(compiled)), null, 'no bundle');

    await mkdir(bundle, { recursive: true });
    await writeFile(path.join(bundle, ENTRY_FILE), '');
    const t = Date.now() / 1000;
    await utimes(path.join(bundle, ENTRY_FILE), t - 60, t - 60);
    await utimes(path.join(compiled, ENTRY_FILE), t, t);
    assert.equal(freshBundle(dirUrl(bundle), dirUrl(compiled)), null, 'a tsc since the bundle: stale');

    await utimes(path.join(bundle, ENTRY_FILE), t, t);
    assert.equal(freshBundle(dirUrl(bundle), dirUrl(compiled))?.href, dirUrl(bundle).href, 'as new: fresh');
    await utimes(path.join(compiled, ENTRY_FILE), t - 60, t - 60);
    assert.equal(freshBundle(dirUrl(bundle), dirUrl(compiled))?.href, dirUrl(bundle).href, 'newer: fresh');
  });
});

describe('the built bundle', () => {
  const root = packageRoot();
  const bundleDir = path.join(root, 'dist', 'bundle');
  const srcDir = path.join(root, 'dist', 'src');

  it('is fresh after the build the tests ran (npm test builds it)', () => {
    assert.notEqual(freshBundle(dirUrl(bundleDir), dirUrl(path.join(srcDir, 'cli'))), null);
  });

  it('has an entry for every worker program a compiled module starts', async () => {
    const started = new Set<string>();
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const file = path.join(dir, e.name);
        if (e.isDirectory()) await walk(file);
        else if (e.name.endsWith('.js')) for (const m of (await readFile(file, 'utf8')).matchAll(/new URL\('\.\/([\w-]+\.js)', import\.meta\.url\)/g)) started.add(m[1]!);
      }
    };
    await walk(srcDir);
    assert.ok(started.has('page-worker.js'), [...started].join(' '));
    assert.deepEqual([...started].filter((name) => !existsSync(path.join(bundleDir, name))), []);
  });

  it('is what a crawl through dist/src/cli/bin.js runs, its page thread included, and the crawl is whole', async () => {
    const web = await FixtureWeb.start({ hosts: 1, pagesPerHost: 30, port: 0 });
    try {
      const jobDir = path.join(tmp, 'crawl');
      const profileFile = path.join(tmp, 'crawl.json');
      await writeFile(profileFile, JSON.stringify(testProfileJson('bundled', web.seeds, jobDir)));
      const resolveLog = path.join(tmp, 'resolved.txt');
      const hooks = pathToFileURL(path.join(root, 'dist', 'test', 'fixtures', 'resolve-log.js')).href;
      const child = spawn(process.execPath, ['--import', hooks, path.join(srcDir, 'cli', 'bin.js'), 'run', profileFile, '--quiet'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ARCHIVER_TEST_RESOLVE_LOG: resolveLog },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      assert.equal(code, 0, stderr);

      const resolved = new Set((await readFile(resolveLog, 'utf8')).split('\n').filter((l) => l !== ''));
      const fromSrc = [...resolved].filter((u) => u.includes('/dist/src/')).map((u) => u.slice(u.indexOf('/dist/src/')));
      assert.deepEqual(fromSrc.sort(), ['/dist/src/cli/bin.js', '/dist/src/cli/builtins-first.js', '/dist/src/cli/bundle-choice.js']);
      const fromBundle = [...resolved].filter((u) => u.includes('/dist/bundle/')).map((u) => u.slice(u.lastIndexOf('/') + 1));
      for (const entry of ['page-thread-first.js', 'crawl-heap.js', 'crash-guard.js', 'cli-entry.js', 'page-worker.js']) assert.ok(fromBundle.includes(entry), `${entry} in ${fromBundle.join(' ')}`);

      const urls = new Set((await readWarcDir(path.join(jobDir, 'warcs'))).filter((r) => r.type === 'response').map((r) => r.url));
      assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), []);
    } finally {
      await web.close();
    }
  });
});
