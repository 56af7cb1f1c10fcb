/**
 * What the browser is served from: the responses this crawl archived, by
 * seen-filter key. A render waiting for a subrequest the frontier has not
 * fetched yet waits here until the URI processor reports its capture, or
 * its failure (robots, budget, transport…), whichever comes first. Recent
 * captures stay in memory up to a byte cap, so a CSS shared by every page is
 * fetched once and served to every render from its archived bytes.
 */
import { createHash } from 'node:crypto';
import { canonicalizeForSeen } from '../url/canonicalize.js';

/**
 * The key of a request: its URL's seen-filter form, and for a POST the
 * method and a hash of its body besides (two POSTs to one URL with other
 * bodies are two captures), in the query, where wabac puts them.
 */
export function requestKey(url: string, post?: { body: string }): string {
  const key = canonicalizeForSeen(url);
  if (post === undefined) return key;
  const hash = createHash('sha1').update(post.body, 'base64').digest('hex');
  return `${key}${key.includes('?') ? '&' : '?'}__wb_method=post&__archiver_body=${hash}`;
}

/** A response as archived: status, headers as received, the stored (still content-encoded) body. */
export interface ArchivedResponse {
  readonly url: string;
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

/** Why a subrequest will not be served: the crawl.log status of the URI that failed, or a refusal. */
export interface NotServed {
  readonly status: number;
}

export type Answer = ArchivedResponse | NotServed;

export function isArchived(a: Answer): a is ArchivedResponse {
  return 'body' in a;
}

/** Bodies kept in memory for later renders; larger ones are served to the renders waiting for them only. */
export const KEPT_BODY_MAX_BYTES = 8 * 1024 * 1024;

export class ArchivedResponses {
  readonly #maxBytes: number;
  /** Insertion order is recency: a hit is moved to the end, the oldest evicted first. */
  readonly #kept = new Map<string, ArchivedResponse>();
  #keptBytes = 0;
  readonly #failed = new Map<string, NotServed>();
  readonly #waiters = new Map<string, Array<(a: Answer) => void>>();

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  /** Whether a render waits for the request `key`: then the URI processor must hand over its capture. */
  wanted(key: string): boolean {
    return this.#waiters.has(key);
  }

  /** What is known of the request `key` now: archived, failed, or undefined (not yet, or no longer in memory). */
  known(key: string): Answer | undefined {
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    return this.#failed.get(key);
  }

  /** Resolves with the request `key`'s answer once the crawl has one, or with null when `signal` aborts first. */
  wait(key: string, signal: AbortSignal): Promise<Answer | null> {
    const now = this.known(key);
    if (now !== undefined) return Promise.resolve(now);
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      this.#waiters.set(key, list);
      const done = (a: Answer | null): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(a);
      };
      const onAbort = (): void => {
        const l = this.#waiters.get(key);
        const i = l?.indexOf(done) ?? -1;
        if (l !== undefined && i >= 0) l.splice(i, 1);
        if (l !== undefined && l.length === 0) this.#waiters.delete(key);
        done(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      list.push(done);
    });
  }

  /** A URI was archived: its waiters get it, and it is kept for later renders when small enough. */
  archived(key: string, r: ArchivedResponse): void {
    this.#failed.delete(key);
    if (r.body.length <= KEPT_BODY_MAX_BYTES) this.#keep(key, r);
    this.#answer(key, r);
  }

  /** A URI reached its end without a capture: renders waiting for it are refused it. */
  failed(key: string, status: number): void {
    if (this.#kept.has(key)) return;
    // Bounded like the kept bodies: a key is a few dozen bytes.
    if (this.#failed.size >= 100_000) this.#failed.delete(this.#failed.keys().next().value!);
    const answer = { status };
    this.#failed.set(key, answer);
    this.#answer(key, answer);
  }

  #answer(key: string, a: Answer): void {
    const list = this.#waiters.get(key);
    if (list === undefined) return;
    this.#waiters.delete(key);
    for (const w of list) w(a);
  }

  #keep(key: string, r: ArchivedResponse): void {
    const old = this.#kept.get(key);
    if (old !== undefined) {
      this.#keptBytes -= old.body.length;
      this.#kept.delete(key);
    }
    this.#kept.set(key, r);
    this.#keptBytes += r.body.length;
    for (const [k, v] of this.#kept) {
      if (this.#keptBytes <= this.#maxBytes) break;
      this.#kept.delete(k);
      this.#keptBytes -= v.body.length;
    }
  }
}
