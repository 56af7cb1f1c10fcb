/**
 * How the tests open each row of the backend table (src/backends/
 * state-backends.ts): a LevelDB in a temp directory, memory, a
 * redis-server and a Redis Cluster of the test's own. The conformance
 * suites run over this list (backends.test.ts), so a new backend runs every
 * suite once it has its line here.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { LEVEL_ROW } from '../../src/backends/level-backend.js';
import { MEMORY_ROW } from '../../src/backends/memory-backend.js';
import { REDIS_ROW } from '../../src/backends/redis-backend.js';
import type { BackendRow, StateBackend } from '../../src/backends/state-backends.js';
import { needsRedisCluster, useSuiteCluster } from '../helpers/redis-cluster.js';
import { needsRedis, useSuiteRedis } from '../helpers/redis-server.js';

export interface OpenedBackend {
  backend: StateBackend;
  /** Close the backend and remove what it kept on disk; a second call does nothing. */
  dispose(): Promise<void>;
}

export interface Opener {
  /** The spec the row is opened by (known once the describe block's servers are up). */
  spec(): string;
  /** Open the backend for crawl `crawl`, as node `node` where the row is shared. Whatever is still open is closed after the block. */
  open(crawl: string, node?: string): Promise<OpenedBackend>;
}

export interface BackendUnderTest {
  row: BackendRow;
  /** Which shape of it (one Redis, a Redis Cluster). */
  variant: string;
  needs(): { skip?: string };
  /** Registers the describe block's hooks (servers to start and stop). */
  use(): Opener;
}

/** An opener over `spec`: every backend it opened is closed after the describe block. */
function opener(row: BackendRow, spec: () => string, stateDir: () => Promise<string | null>): Opener {
  const open: OpenedBackend[] = [];
  after(async () => {
    for (const o of open.splice(0)) await o.dispose();
  });
  return {
    spec,
    async open(crawl, node = 'n1') {
      const dir = await stateDir();
      const backend = await row.open(spec(), { stateDir: dir ?? '', crawl, node, profileHash: 'test-profile', log: null });
      let closed = false;
      const o: OpenedBackend = {
        backend,
        async dispose() {
          if (closed) return;
          closed = true;
          await backend.close();
          if (dir !== null) await fs.rm(dir, { recursive: true, force: true });
        },
      };
      open.push(o);
      return o;
    },
  };
}

const tempDir = (): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), 'archiver-backend-'));

export const BACKENDS_UNDER_TEST: readonly BackendUnderTest[] = [
  { row: LEVEL_ROW, variant: 'a LevelDB per job', needs: () => ({}), use: () => opener(LEVEL_ROW, () => 'level', tempDir) },
  { row: MEMORY_ROW, variant: 'this process', needs: () => ({}), use: () => opener(MEMORY_ROW, () => 'memory', async () => null) },
  {
    row: REDIS_ROW,
    variant: 'one Redis',
    needs: needsRedis,
    use: () => {
      // The opener's after() is registered first, so its backends close before the servers stop.
      let suite: ReturnType<typeof useSuiteRedis> | undefined;
      const o = opener(REDIS_ROW, () => suite!.redis.spec(), async () => null);
      suite = useSuiteRedis();
      return o;
    },
  },
  {
    row: REDIS_ROW,
    variant: 'Redis Cluster',
    needs: needsRedisCluster,
    use: () => {
      // The opener's after() is registered first, so its backends close before the servers stop.
      let suite: ReturnType<typeof useSuiteCluster> | undefined;
      const o = opener(REDIS_ROW, () => suite!.cluster.spec(), async () => null);
      suite = useSuiteCluster();
      return o;
    },
  },
];
