#!/usr/bin/env node
/**
 * Build step after tsc and the profile validator: bundles the compiled CLI
 * (dist/src/) with esbuild into dist/bundle/, one file per entry point —
 * the CLI, what bin.ts loads before it, and each worker thread's program —
 * plus the chunks they share and those loaded on demand. bin.ts runs the
 * bundle when it is fresher than dist/src/ (src/cli/bundle-choice.ts).
 *
 * Packages stay outside, loaded from node_modules as before, except parse5
 * and entities (plain ES modules, ~30 files the main and page threads would
 * otherwise resolve one by one; every other package is CommonJS loaded
 * through createRequire, or native, or not used by a crawl). The files the
 * modules find beside themselves stay outside too: the compiled profile validator
 * is copied in (it carries the hash of the schema it was made from,
 * src/config/profile-validator.ts). Workers are found beside the module
 * that starts them (`new URL('./page-worker.js', import.meta.url)`): in the
 * bundle that module is a chunk in dist/bundle/, where each worker is an
 * entry of the same name.
 */
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}/dist/src`;
const out = `${root}/dist/bundle`;

/** Entry name (the file's name in the bundle) → compiled module. */
const ENTRIES = {
  'cli-entry': 'cli/cli-entry.js',
  'crash-guard': 'cli/crash-guard.js',
  'crawl-heap': 'core/crawl-heap.js',
  'page-thread-first': 'cli/page-thread-first.js',
  'page-worker': 'crawl/page-worker.js',
  'search-worker': 'search/search-worker.js',
  'page-links-worker': 'analysis/page-links-worker.js',
  'pagerank-worker': 'analysis/pagerank-worker.js',
  'capture-worker': 'writer/capture-worker.js',
};

const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
const INSIDE = new Set(['parse5', 'entities']);
const EXTERNAL = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((name) => !INSIDE.has(name)).flatMap((name) => [name, `${name}/*`]);
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, `${src}/${file}`])),
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  logLevel: 'warning',
});
copyFileSync(`${src}/config/profile-validator.standalone.cjs`, `${out}/profile-validator.standalone.cjs`);
