/**
 * Whether bin.ts loads the CLI from the bundle (dist/bundle/, scripts/bundle.mjs)
 * or from the compiled modules it was made from (dist/src/). A crawl loading
 * ~230 ES modules (and parse5's ~30) spent 0.1-0.2 s of CPU at every start
 * resolving, reading and linking them before any of their code ran; the
 * bundle has under a hundred files, most of them small shared chunks.
 *
 * The bundle is used only when it was made after the compiled modules: tsc
 * rewrites every output file, so a bare `tsc` since the last bundle (a
 * developer's edit, compiled) makes it stale, and the CLI then runs what
 * tsc just wrote. Run from the TypeScript sources (tsx) there is no bundle
 * beside bin.ts, and likewise the modules run as they are.
 *
 * Loaded unbundled by bin.ts, before anything else: node:fs only.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The file both the bundle and the compiled modules have, compared by modification time. */
export const ENTRY_FILE = 'cli-entry.js';

/**
 * `bundleDir`'s URL when its entry exists and is at least as new as
 * `compiledDir`'s (both directory URLs, ending in `/`); null when the bundle
 * is missing or older.
 */
export function freshBundle(bundleDir: URL, compiledDir: URL): URL | null {
  const bundled = statSync(fileURLToPath(new URL(ENTRY_FILE, bundleDir)), { throwIfNoEntry: false });
  if (bundled === undefined) return null;
  const compiled = statSync(fileURLToPath(new URL(ENTRY_FILE, compiledDir)), { throwIfNoEntry: false });
  if (compiled !== undefined && compiled.mtimeMs > bundled.mtimeMs) return null;
  return bundleDir;
}
