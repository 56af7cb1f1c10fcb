/**
 * The already-seen filter contract (Heritrix's UriUniqFilter): put-if-absent
 * on the canonical form of a URL, so each URL is scheduled at most once per
 * crawl. Every backend (LevelDB, in-memory, Redis) implements this and runs
 * the shared conformance suite in test/uniq/conformance.ts.
 */
import { ArchiverError, FatalCrawlError } from '../core/errors.js';

/**
 * Runs after the filter has decided which URLs are new and before it records
 * them; meanwhile concurrent calls already see those URLs as taken. The crawl
 * queues the new URIs here, so a crash between the two steps can at worst
 * repeat work (URIs queued, not yet recorded as seen), never lose links
 * (recorded as seen, never queued). If it throws, nothing is recorded and the
 * error is the caller's.
 */
export type BeforeCommit = (fresh: readonly boolean[]) => Promise<void>;

export interface UriUniqFilter {
  /**
   * Put-if-absent for each URL (canonicalized inside); true = new (the caller
   * schedules it). One batched round trip; within one batch only the first
   * of equal keys is new. Concurrent calls never both get true for one key.
   */
  addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]>;
  add(url: string): Promise<boolean>;
  /**
   * Whether each URL is recorded (or being recorded by a running batch),
   * recording nothing: a read-only check, e.g. so a refusal is not logged
   * for a URL the crawl already has.
   */
  hasMany(urls: readonly string[]): Promise<boolean[]>;
  /** Record the URL; the caller schedules it anyway (prerequisites, redirects). */
  addForce(url: string): Promise<void>;
  /** Record without scheduling. */
  note(url: string): Promise<void>;
  /** Forget one URL (it may be added again). */
  forget(url: string): Promise<void>;
  /** Forget every URL of this URL's scheme+authority (the 3-byte key prefix). */
  forgetHost(url: string): Promise<number>;
  /** How many keys are stored (kept across reopen). */
  count(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The single-URL operations expressed through addMany, so a backend only
 * implements the batched path (and sees every insert there).
 */
export abstract class BatchedUriUniqFilter implements UriUniqFilter {
  abstract addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]>;
  abstract hasMany(urls: readonly string[]): Promise<boolean[]>;
  abstract forget(url: string): Promise<void>;
  abstract forgetHost(url: string): Promise<number>;
  abstract count(): Promise<number>;
  abstract close(): Promise<void>;

  async add(url: string): Promise<boolean> {
    const [isNew] = await this.addMany([url]);
    return isNew === true;
  }

  async addForce(url: string): Promise<void> {
    await this.addMany([url]);
  }

  async note(url: string): Promise<void> {
    await this.addMany([url]);
  }
}

/** Carries a BeforeCommit failure through the backend's own error wrapping, unchanged. */
export class BeforeCommitFailure {
  constructor(readonly cause: unknown) {}
}

/** Run the hook; what it throws comes out as a BeforeCommitFailure. */
export async function runBeforeCommit(hook: BeforeCommit, fresh: readonly boolean[]): Promise<void> {
  try {
    await hook(fresh);
  } catch (err) {
    throw new BeforeCommitFailure(err);
  }
}

/** The filter was used after close(): a bug in the caller's shutdown order. */
export class UniqFilterClosedError extends ArchiverError {
  constructor() {
    super('ARCHIVER_UNIQ_CLOSED', 'the already-seen filter is closed');
  }
}

/**
 * The seen store could not be read or written. The crawl cannot tell new
 * URLs from old ones any more, so it stops (exit code 1) rather than
 * re-crawling or dropping links silently.
 */
export class UniqStoreError extends FatalCrawlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_UNIQ_STORE', message, options);
  }
}
