/**
 * What `archiver run` takes on its command line (run-command.ts), and what
 * its profile's raw JSON says before it is validated: whether the crawl
 * follows links. Apart, and light, so that bin.ts can read both before it
 * loads the CLI (page-thread-first.ts).
 */
import { readFileSync } from 'node:fs';

/** node:util parseArgs options of `run` (parse-options.ts adds -h/--help). */
export const RUN_OPTIONS = {
  fresh: { type: 'boolean' },
  quiet: { type: 'boolean' },
  workers: { type: 'string' },
  'max-pages': { type: 'string' },
  'max-bytes': { type: 'string' },
  'max-duration': { type: 'string' },
  console: { type: 'boolean' },
  'console-port': { type: 'string' },
  'console-host': { type: 'string' },
  'keep-console': { type: 'boolean' },
  store: { type: 'string' },
  node: { type: 'string' },
} as const;

/**
 * Whether the profile at `file` follows links (`scope.maxHops` other than 0;
 * 20 when not given), read off its JSON as it is: false when it cannot be
 * read or parsed, which loadProfile then says properly.
 */
export function followsLinks(file: string): boolean {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { scope?: { maxHops?: unknown } } | null;
    return json?.scope?.maxHops !== 0;
  } catch {
    return false;
  }
}
