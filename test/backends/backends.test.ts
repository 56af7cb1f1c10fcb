/**
 * Every row of the backend table runs every conformance suite, through the
 * backend as a crawl opens it: the frontier (a row of one process; see
 * below), the seen filter, the records, the digest index over the
 * backend's map, and the coordination. A row
 * that is missing from backend-rows.ts fails the first test here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, backendRow } from '../../src/backends/state-backends.js';
import { StoredDigestIndex } from '../../src/dedup/digest-index.js';
import { digestIndexConformance } from '../dedup/digest-index-conformance.js';
import { frontierConformance } from '../frontier/conformance.js';
import { uniqFilterConformance } from '../uniq/conformance.js';
import { BACKENDS_UNDER_TEST } from './backend-rows.js';
import { coordinationConformance } from './coordination-conformance.js';
import { recordStoreConformance } from './record-store-conformance.js';

it('every row of the backend table is tested here', () => {
  assert.deepEqual(
    BACKENDS.filter((row) => !BACKENDS_UNDER_TEST.some((b) => b.row === row)).map((row) => row.name),
    [],
  );
});

for (const b of BACKENDS_UNDER_TEST) {
  describe(`state backend ${b.row.name} (${b.variant})`, b.needs(), () => {
    const under = b.use();
    const name = `${b.row.name}, ${b.variant}`;
    let crawls = 0;
    const crawl = (): string => `conf${++crawls}`;

    it('is the row its spec names', () => {
      assert.equal(backendRow(under.spec()), b.row);
    });

    // A shared row's frontier ends only when the crawl's nodes agree (its coordination's view) and adds the machine's
    // load to every delay: it runs this suite with one node on a view of its own (test/frontier/redis-frontier.test.ts).
    if (!b.row.shared) {
      frontierConformance(name, async (setup) => {
        const { backend } = await under.open(crawl());
        return { frontier: await backend.frontier(setup, false), reopen: () => backend.frontier(setup, true), dispose: async () => {} };
      });
    }

    // A memory table of 4 keys: most answers of the suite come from the store.
    uniqFilterConformance(name, async () => (await under.open(crawl())).backend.seenFilter('seen', 4));

    recordStoreConformance(name, async () => {
      const { backend, dispose } = await under.open(crawl());
      return { store: backend.records('robots'), again: () => backend.records('robots'), dispose };
    });

    digestIndexConformance(name, async () => {
      const { backend } = await under.open(crawl());
      return new StoredDigestIndex(backend.digests(), backend.shared ? { memoryDigests: 0 } : {});
    });

    coordinationConformance(name, {
      shared: b.row.shared,
      crawl,
      async join(crawl, node) {
        const { backend, dispose } = await under.open(crawl, node);
        return { coordination: backend.coordination, joined: backend.joined, close: dispose };
      },
    });
  });
}
