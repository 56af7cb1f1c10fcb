/**
 * Where a crawl keeps its state, chosen by one name (the profile's `store`,
 * or `--store`): the table of backends, one row each (state-backend.ts says
 * what a row gives). A new backend is one row here.
 * - `level` (default): one LevelDB per job under `state/` (level-backend.ts).
 * - `memory`: all in memory, nothing resumes (memory-backend.ts).
 * - `redis://…`, `redis+cluster://…`: shared by several processes
 *   (redis-backend.ts).
 * Nothing outside this floor opens a database: every part of the crawl gets
 * its store from the backend, and talks to interfaces only (Frontier,
 * UriUniqFilter, RecordStore, ByteMap, CrawlCoordination).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { LEVEL_ROW } from './level-backend.js';
import { MEMORY_ROW } from './memory-backend.js';
import { REDIS_ROW } from './redis-backend.js';
import type { BackendRow, BackendTarget, StateBackend, StoreInspector } from './state-backend.js';

export type { BackendRow, BackendTarget, RecordsName, StateBackend, StoreInspector } from './state-backend.js';

export const BACKENDS: readonly BackendRow[] = [LEVEL_ROW, MEMORY_ROW, REDIS_ROW];

/** The row `spec` names; an unknown name is a usage error that lists the known ones. */
export function backendRow(spec: string): BackendRow {
  const row = findBackendRow(spec);
  if (row === undefined) throw new UsageError(`unknown state store ${JSON.stringify(spec)} (known: ${BACKENDS.map((b) => b.specs).join(', ')})`);
  return row;
}

/** Open the backend `spec` names. */
export async function openStateBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  return backendRow(spec).open(spec, target);
}

/**
 * Forget a crawl's state kept outside its job directory (`--fresh`): a
 * Redis crawl's keys; refused while a node of it is alive. A backend that
 * keeps its state in the job directory has nothing to do: `--fresh` moves
 * that aside.
 */
export async function resetStateBackend(spec: string, crawl: string): Promise<void> {
  await backendRow(spec).reset(spec, crawl);
}

/** Open a store to look at its crawls from outside; a row that cannot be inspected is a usage error. */
export async function inspectStore(spec: string): Promise<StoreInspector> {
  const row = findBackendRow(spec);
  if (row?.inspect == null) {
    const can = BACKENDS.filter((b) => b.inspect !== null).map((b) => b.specs);
    const what = row === undefined ? `unknown state store ${JSON.stringify(spec)}` : JSON.stringify(spec);
    // A job folder, the likeliest thing to be given here: where a crawl of one process shows how it went.
    const job = isDirectory(spec) ? `; a crawl of one process shows how it went in ${path.join(spec, 'reports')}, and archiver serve ${path.dirname(path.resolve(spec))} shows its jobs` : '';
    throw new UsageError(`${what}: status, stop and serve --store take a store shared by several processes, ${can.join(', ')}${job}`);
  }
  return row.inspect(spec);
}

/** The row `spec` names, if any. */
function findBackendRow(spec: string): BackendRow | undefined {
  return BACKENDS.find((b) => b.matches(spec));
}

function isDirectory(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
