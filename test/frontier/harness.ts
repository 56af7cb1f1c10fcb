/**
 * What the frontier tests share: the factory contract every backend
 * implements for the conformance suite, a clock the tests move by hand,
 * test URIs, and drivers that claim and finish through the Frontier
 * interface only.
 */
import assert from 'node:assert/strict';
import type { FrontierOptions } from '../../src/config/profile.js';
import type { Clock } from '../../src/core/clock.js';
import { Directive, type CrawlUri } from '../../src/core/crawl-uri.js';
import type { Claim, Frontier } from '../../src/frontier/frontier.js';
import { mulberry32 } from '../helpers/prng.js';

export interface FrontierSetup {
  options: FrontierOptions;
  maxConnectionsPerHost: number;
  /** The frontier's only time source. */
  clock: Clock;
}

export interface FrontierUnderTest {
  frontier: Frontier;
  /** A frontier resumed from the same store (and setup), after the test closed the last one. */
  reopen(): Promise<Frontier>;
  /** Release everything the factory made (stores, temp dirs). */
  dispose(): Promise<void>;
}

export type FrontierFactory = (setup: FrontierSetup) => Promise<FrontierUnderTest>;

export const DEFAULT_TEST_OPTIONS: FrontierOptions = Object.freeze({
  queueAssignment: 'hostname',
  elfHashBuckets: 100,
  elfHashOf: 'url',
  order: 'breadth-first',
  precedence: 'fifo',
  balanceReplenishAmount: 3000,
  queueTotalBudget: -1,
});

export const T0 = 1_700_000_000_000;

/** Time stands still until the test moves it. */
export class ManualClock implements Clock {
  t = T0;

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }
}

/** A CrawlUri with the given hop path; directive follows the last hop unless given. */
export function uri(url: string, hopPath = '', directive?: Directive): CrawlUri {
  const last = hopPath.at(-1);
  const implied = last === 'P' ? Directive.prerequisite : last === 'E' || last === 'R' ? Directive.high : Directive.normal;
  return { url, hopPath, via: null, context: '', seed: hopPath === '', directive: directive ?? implied, retries: 0, redirects: 0 };
}

/** Deterministic PRNG so a failing sequence can be replayed. */
export const rng = mulberry32;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** next() that does not wait: a claim if one is available now, else null. */
export async function tryNext(frontier: Frontier): Promise<Claim | null> {
  const ac = new AbortController();
  const result = frontier.next(ac.signal);
  setImmediate(() => ac.abort());
  return result;
}

/** A claim that must be available now. */
export async function take(frontier: Frontier): Promise<Claim> {
  const claim = await tryNext(frontier);
  assert.ok(claim, 'expected a claim, got none');
  return claim;
}

/** next() that must not be null (may wait). */
export async function waitFor(frontier: Frontier): Promise<Claim> {
  const claim = await frontier.next();
  assert.ok(claim, 'expected a claim, got null');
  return claim;
}

/** Claim and finish (delay 0) what is available now, one by one, returning URLs in claim order. */
export async function drain(frontier: Frontier): Promise<string[]> {
  const order: string[] = [];
  for (let claim = await tryNext(frontier); claim !== null; claim = await tryNext(frontier)) {
    order.push(claim.uri.url);
    await frontier.finished(claim, { kind: 'done', delayMs: 0 });
  }
  return order;
}

/** Is `next(signal)` still pending after `ms` of real time? (aborts it either way) */
export async function pendingFor(frontier: Frontier, ms: number): Promise<Claim | null | 'pending'> {
  const ac = new AbortController();
  const result = frontier.next(ac.signal);
  const winner = await Promise.race([result, sleep(ms).then(() => 'pending' as const)]);
  ac.abort();
  await result;
  return winner;
}

export interface TimedRun {
  fetched: number;
  /** Starts of a host's fetch while another of its fetches was running. */
  overlaps: number;
  /** Smallest time from the end of a host's fetch to the start of its next one. */
  minGapMs: number;
}

/**
 * A crawl in simulated time: up to `workers` URIs in process; each fetch
 * takes `fetchMs`, then (with `release`) the fetch is released with
 * `delayMs` and the URI finished `processMs` later, or (without) finished
 * at once with `delayMs`. The clock jumps from event to event: a fetch or
 * its processing ends, or a queue wakes.
 */
export async function runTimed(
  frontier: Frontier,
  clock: ManualClock,
  o: { workers: number; fetchMs: number; processMs: number; delayMs: number; release: boolean },
): Promise<TimedRun> {
  interface Running {
    claim: Claim;
    fetchEnd: number;
    doneAt: number;
    released: boolean;
  }
  const running: Running[] = [];
  const fetching = new Map<string, number>();
  const lastEnd = new Map<string, number>();
  const run: TimedRun = { fetched: 0, overlaps: 0, minGapMs: Infinity };
  for (;;) {
    while (running.length < o.workers) {
      const claim = await tryNext(frontier);
      if (claim === null) break;
      const ended = lastEnd.get(claim.host);
      if (ended !== undefined) run.minGapMs = Math.min(run.minGapMs, clock.t - ended);
      if ((fetching.get(claim.host) ?? 0) > 0) run.overlaps++;
      fetching.set(claim.host, (fetching.get(claim.host) ?? 0) + 1);
      running.push({ claim, fetchEnd: clock.t + o.fetchMs, doneAt: clock.t + o.fetchMs + (o.release ? o.processMs : 0), released: false });
    }
    const wake = Math.min(...frontier.queues().map((q) => (q.wakeAt !== null && q.wakeAt > clock.t ? q.wakeAt : Infinity)));
    const event = Math.min(...running.map((r) => (r.released ? r.doneAt : r.fetchEnd)));
    const next = Math.min(wake, event);
    if (!Number.isFinite(next)) break;
    clock.t = Math.max(clock.t, next);
    for (const r of [...running]) {
      if (!r.released && r.fetchEnd <= clock.t) {
        r.released = true;
        fetching.set(r.claim.host, fetching.get(r.claim.host)! - 1);
        lastEnd.set(r.claim.host, clock.t);
        run.fetched++;
        if (o.release) await frontier.released(r.claim, o.delayMs);
      }
      if (r.released && r.doneAt <= clock.t) {
        running.splice(running.indexOf(r), 1);
        await frontier.finished(r.claim, { kind: 'done', delayMs: o.delayMs });
      }
    }
  }
  assert.equal(running.length, 0);
  return run;
}

/**
 * Workers loop next → hold a while (real time) → finished(done, 0),
 * recording the most fetches in flight per host.
 */
export async function simulate(frontier: Frontier, workers: number, holdMs: number) {
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  let fetched = 0;
  const worker = async (): Promise<void> => {
    for (let claim = await frontier.next(); claim !== null; claim = await frontier.next()) {
      const n = (inFlight.get(claim.host) ?? 0) + 1;
      inFlight.set(claim.host, n);
      maxInFlight.set(claim.host, Math.max(maxInFlight.get(claim.host) ?? 0, n));
      await sleep(holdMs);
      inFlight.set(claim.host, (inFlight.get(claim.host) ?? 1) - 1);
      fetched++;
      await frontier.finished(claim, { kind: 'done', delayMs: 0 });
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { maxInFlight, fetched };
}
