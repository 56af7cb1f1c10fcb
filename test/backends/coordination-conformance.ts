/**
 * The CrawlCoordination conformance suite: what the crawl relies on from
 * any backend's coordination, through the interface only, for a crawl of
 * one node — joining, the end, who packages — and, for a row that is
 * shared, what several nodes agree on: a run flag set by one is heard by
 * every other, and a node joining a finished crawl finds it finished. Each
 * row of the backend table runs it (backends.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { CrawlCoordination, JoinResult, RunFlags } from '../../src/backends/crawl-coordination.js';

export interface NodeUnderTest {
  coordination: CrawlCoordination;
  joined: JoinResult;
  close(): Promise<void>;
}

export interface CoordinationFactory {
  /** The row's `shared`: several nodes take part in one crawl. */
  shared: boolean;
  /** A new crawl's name (a shared backend keeps crawls apart by it). */
  crawl(): string;
  /** Join `crawl` as node `node` (a backend of one process ignores the id). */
  join(crawl: string, node: string): Promise<NodeUnderTest>;
}

const FIGURES = { pages: 2, bytes: 20, pagesPerSec: 1, inFlight: 0, busyQueues: 1, elapsedMs: 1000 };

/** Resolves with the first flags `heard` holds that `ok` accepts; the heartbeat that carries them comes within a few seconds. */
async function heard(flags: RunFlags[], ok: (f: RunFlags) => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !flags.some(ok); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(flags.some(ok), what);
}

export function coordinationConformance(name: string, factory: CoordinationFactory): void {
  const join = async (t: TestContext, crawl: string, node: string): Promise<NodeUnderTest> => {
    const under = await factory.join(crawl, node);
    t.after(() => under.close());
    return under;
  };

  describe(`CrawlCoordination conformance: ${name}`, () => {
    it('a new crawl is joined unfinished; a node id only where several processes share it', async (t) => {
      const { coordination, joined } = await join(t, factory.crawl(), 'n1');
      assert.equal(joined.finished, false);
      assert.ok(Number.isInteger(joined.incarnation) && joined.incarnation >= 0);
      assert.equal(coordination.node, factory.shared ? 'n1' : null);
      assert.ok(coordination.view().live().length <= 1);
    });

    it('the only node leaving a finished crawl packages it; leaving an unfinished one does not', async (t) => {
      const crawl = factory.crawl();
      const a = await join(t, crawl, 'a');
      a.coordination.start(() => FIGURES, () => {});
      await a.coordination.seeded();
      assert.equal(await a.coordination.leave(false), false);
      const b = await join(t, factory.crawl(), 'b');
      b.coordination.start(() => FIGURES, () => {});
      await b.coordination.seeded();
      assert.equal(await b.coordination.leave(true), true);
      await b.coordination.packaged();
    });

    if (!factory.shared) return;

    it('a run flag set by one node is heard by another, and cleared again', { timeout: 15_000 }, async (t) => {
      const crawl = factory.crawl();
      const a = await join(t, crawl, 'a');
      const b = await join(t, crawl, 'b');
      const flags: RunFlags[] = [];
      a.coordination.start(() => FIGURES, () => {});
      b.coordination.start(() => FIGURES, (f) => flags.push(f));
      await a.coordination.setFlag('paused', true);
      await heard(flags, (f) => f.paused, 'b heard the pause');
      await a.coordination.setFlag('paused', false);
      await heard(flags, (f) => !f.paused, 'b heard the resume');
      await a.coordination.setFlag('stopped', true);
      await heard(flags, (f) => f.stopped, 'b heard the stop');
    });

    it('of two nodes, only the last to leave a finished crawl packages it; a node joining later finds it finished', async (t) => {
      const crawl = factory.crawl();
      const a = await join(t, crawl, 'a');
      const b = await join(t, crawl, 'b');
      a.coordination.start(() => FIGURES, () => {});
      b.coordination.start(() => FIGURES, () => {});
      assert.equal(await a.coordination.leave(true), false);
      assert.equal(await b.coordination.leave(true), true);
      await b.coordination.packaged();
      const c = await join(t, crawl, 'c');
      assert.equal(c.joined.finished, true);
    });
  });
}
