/**
 * The crawl's workers (worker-pool.ts). The bug: a worker stayed with its
 * URI until the WARC records, logs and outlinks were written, though the
 * host was free again as soon as the fetch ended; with servers answering in
 * 20 ms, 40 workers kept only 8 fetches going and ready hosts sat idle.
 * Now a worker takes its next claim once its fetch is over. These tests
 * observe that through ordering only: a claim whose finishing waits for the
 * next claim to start deadlocks (and times out) when a worker is stuck with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seedUri } from '../../src/core/crawl-uri.js';
import { WorkerPool, type ClaimSource } from '../../src/crawl/worker-pool.js';
import { LevelQueueStore } from '../../src/frontier/level-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { DEFAULT_TEST_OPTIONS } from '../frontier/conformance.js';
import { useTempLevel } from '../helpers/temp-level.js';

const state = useTempLevel();

/** Claims from a fixed list; what goes back is noted. */
function listOf(items: readonly string[]): ClaimSource<string> & { givenBack: string[] } {
  let at = 0;
  const givenBack: string[] = [];
  return { givenBack, next: async () => items[at++] ?? null, finished: async (claim) => void givenBack.push(claim) };
}

/** A promise and its resolve. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** One turn of the event loop: anything chained on promises alone has run by then. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A worker stuck with a claim deadlocks these tests: fail them after this long instead. */
const DEADLOCK = { timeout: 5000 };

function pool(items: readonly string[], handle: (claim: string, fetchOver: () => void) => Promise<void>, maxFinishing?: number): WorkerPool<string> {
  return new WorkerPool<string>({ size: 1, frontier: listOf(items), handle: (claim, _worker, fetchOver) => handle(claim, fetchOver), ...(maxFinishing ? { maxFinishing } : {}) });
}

describe('WorkerPool', () => {
  it('one worker starts the next claim while the one whose fetch is over is still finishing', DEADLOCK, async () => {
    const events: string[] = [];
    const aWritten = gate();
    await pool(['a', 'b'], async (claim, fetchOver) => {
      events.push(`${claim} fetched`);
      fetchOver();
      // a's records are written only once b has started: a worker stuck with a never starts b.
      if (claim === 'a') await aWritten.opened;
      else aWritten.open();
      events.push(`${claim} finished`);
    }).run();
    assert.deepEqual(events, ['a fetched', 'b fetched', 'b finished', 'a finished']);
  });

  it('a claim that does not say its fetch is over keeps its worker to the end', async () => {
    const events: string[] = [];
    await pool(['robots', 'page'], async (claim) => {
      events.push(`${claim} started`);
      await nextTurn();
      events.push(`${claim} finished`);
    }).run();
    assert.deepEqual(events, ['robots started', 'robots finished', 'page started', 'page finished']);
  });

  it('past maxFinishing claims finishing behind, a worker finishes its own claim before taking another', DEADLOCK, async () => {
    const events: string[] = [];
    const aWritten = gate();
    await pool(['a', 'b', 'c'], async (claim, fetchOver) => {
      events.push(`${claim} fetched`);
      fetchOver();
      if (claim === 'a') await aWritten.opened;
      // b cannot go behind (a fills the one place): c must wait for b's turn to pass.
      if (claim === 'b') await nextTurn();
      if (claim === 'c') aWritten.open();
      events.push(`${claim} finished`);
    }, 1).run();
    assert.deepEqual(events, ['a fetched', 'b fetched', 'b finished', 'c fetched', 'c finished', 'a finished']);
  });

  it('run() resolves only once the claims finishing behind have finished', async () => {
    const events: string[] = [];
    await pool(['a', 'b', 'c'], async (claim, fetchOver) => {
      fetchOver();
      for (let turn = 0; turn < 3; turn++) await nextTurn();
      events.push(claim);
    }, 3).run();
    assert.deepEqual([...events].sort(), ['a', 'b', 'c']);
  });

  it('paused, it takes no claim; a claim that arrives as it pauses goes back untouched; resumed, it goes on', DEADLOCK, async () => {
    const source = listOf(['a', 'b', 'c']);
    const handled: string[] = [];
    const p = new WorkerPool<string>({ size: 1, frontier: source, handle: async (claim) => void handled.push(claim) });
    p.pause();
    const running = p.run();
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    assert.deepEqual(handled, []);
    p.resume();
    await running;
    assert.deepEqual(handled, ['a', 'b', 'c']);
    assert.deepEqual(source.givenBack, []);
  });

  it('with the frontier, one worker fetches a second host while the first URI is still in process', DEADLOCK, async () => {
    const frontier = new WorkQueueFrontier({ store: new LevelQueueStore(new Keyspace(state.db, 'frontier')), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1 });
    await frontier.schedule(['http://a.test/', 'http://b.test/'].map(seedUri));
    const fetched: string[] = [];
    const inProcessAtFetch: number[] = [];
    const firstWritten = gate();
    await new WorkerPool({
      size: 1,
      frontier,
      handle: async (claim, _worker, fetchOver) => {
        fetched.push(claim.uri.url);
        inProcessAtFetch.push(frontier.stats().inProcess);
        await frontier.released(claim, 0);
        fetchOver();
        if (fetched.length === 1) await firstWritten.opened;
        else firstWritten.open();
        await frontier.finished(claim, { kind: 'done', delayMs: 0 });
      },
    }).run();
    assert.deepEqual(fetched, ['http://a.test/', 'http://b.test/']);
    // b was fetched while a was still handed out: two URIs in process at once, with one worker.
    assert.deepEqual(inProcessAtFetch, [1, 2]);
    assert.equal(frontier.stats().finished, 2);
    await frontier.close();
  });
});
