/**
 * The `level` row (the default): one LevelDB per job under `state/`, a
 * keyspace for each part; one process is the whole crawl.
 */
import { FatalCrawlError } from '../core/errors.js';
import { LevelQueueStore } from '../frontier/level-queue-store.js';
import { Keyspace } from '../store/keyspace.js';
import { keyspaceMap } from '../store/keyspace-map.js';
import { levelDatabase } from '../store/level-database.js';
import { keyspaceRecords } from '../store/record-store.js';
import { LevelUriUniqFilter } from '../uniq/level-uniq-filter.js';
import { oneProcessBackend } from './one-process-backend.js';
import type { BackendRow, StateBackend } from './state-backend.js';

export const LEVEL_ROW: BackendRow = {
  name: 'level',
  specs: 'level',
  matches: (spec) => spec === 'level',
  shared: false,
  inspect: null,
  open: openLevelBackend,
  // Its state is in the job directory, which `--fresh` moves aside.
  reset: async () => {},
};

async function openLevelBackend(spec: string, target: { stateDir: string }): Promise<StateBackend> {
  const db = levelDatabase(target.stateDir);
  try {
    await db.open();
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_STATE_LOCKED', `${target.stateDir}: cannot open crawl state (is another crawl running on this job?)`, { cause: err });
  }
  // Keyspaces hold the same bytes as sublevels of these names (earlier versions wrote sublevels).
  return oneProcessBackend(spec, {
    queues: new LevelQueueStore(new Keyspace(db, 'frontier')),
    seenFilter: (which, memoryKeys) => new LevelUriUniqFilter(new Keyspace(db, which), { memoryKeys }),
    records: (name) => keyspaceRecords(new Keyspace(db, name)),
    digests: () => keyspaceMap(new Keyspace(db, 'digests')),
    earlier: () => keyspaceMap(new Keyspace(db, 'earlier')),
    close: () => db.close(),
  });
}
