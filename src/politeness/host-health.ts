/**
 * Whether a host can be fetched, decided per host and never per URI: a
 * robots.txt that answers 5xx/429 or cannot be fetched, and a server that
 * fails at the transport level (DNS, refused, reset, timeout), make the
 * HOST wait — once per retry, however many URIs it has queued — and, when
 * its retries are spent, close it: every URI of a closed host is disposed of
 * at once with the host's status (-61 for robots, the transport code
 * otherwise), without a fetch or a wait. Heritrix waits per URI, which made
 * a host with a dead robots.txt keep a finished crawl alive for weeks
 * (issue 12; heritrix3 #203, #252).
 *
 * robots.txt (RFC 9309 §2.3.1.3-4): unavailable → the host stays shut
 * (`disallow`, the RFC's rule) or open (`allow`, Heritrix's) once the
 * `retries` re-fetches, `retryDelayMs` apart and doubling, are spent. A
 * robots.txt that gets no answer at all from a host that never answered
 * (a dead seed: refused, no DNS) is re-fetched within seconds and then
 * closes the host with the transport's status, whatever the policy.
 * Transport: a failure starts a failed round (a failure while the host
 * already waits belongs to the same round); `maxRetries` rounds in a row
 * are waited out, the next failure closes the host; any HTTP answer resets
 * the count. This module only decides: the frontier's host gate does the
 * waiting (a hold until `untilMs`), the URI processor does the disposing.
 * Hosts are `host:port`, the frontier's unit of politeness. The options
 * may differ by host (the profile's overrides): they are then a function
 * of the host.
 */

export interface HostHealthOptions {
  /** Failed transport rounds a host may wait out; the next failure closes it (limits.maxRetries). */
  maxRetries: number;
  /** Wait after a failed transport round (limits.retryDelayMs). */
  retryDelayMs: number;
  robots: {
    /** When re-fetches are spent: keep the host shut, or crawl it as if robots.txt allowed all. */
    policy: 'disallow' | 'allow';
    /** Re-fetches of an unavailable robots.txt. */
    retries: number;
    /** Wait before the first re-fetch; doubles each time. */
    retryDelayMs: number;
  };
}

/** What a host's URIs get now. */
export type HostVerdict = { kind: 'open' } | ClosedVerdict;
export interface ClosedVerdict {
  kind: 'closed';
  /** crawl.log status for its URIs: -61, or the last transport failure's. */
  status: number;
  /** crawl.log annotation, e.g. `robotsUnavailable`. */
  annotation: string;
}

/** After a failure: wait until `untilMs` (the frontier holds the host), or the host is closed. */
export type FailureDecision = { kind: 'wait'; untilMs: number } | ClosedVerdict;

/** After an unavailable robots.txt: wait and re-fetch, crawl as allowed, or closed. */
export type RobotsDecision = { kind: 'wait'; untilMs: number } | { kind: 'allow' } | ClosedVerdict;

/** A host waiting out a failure, for the progress line and status(). */
export interface WaitingHost {
  host: string;
  /** `robots.txt 500`, `robots.txt unreachable`, `-2 connect failed`… */
  reason: string;
  untilMs: number;
  /** The retry this wait leads to, and how many there are. */
  retry: number;
  of: number;
}

/** A closed host, for the reports. */
export interface ClosedHost {
  host: string;
  status: number;
  annotation: string;
  /** What robots.txt answered (`500`, `unreachable`), or the transport failure. */
  cause: string;
}

/** One host's record, as saved for a resume. */
export interface HostRecord {
  /** Failed transport rounds in a row. */
  rounds: number;
  /** Unavailable robots.txt answers in a row. */
  robotsFailures: number;
  /** Epoch ms the current wait ends (0: none). */
  untilMs: number;
  /** Why it waits or was closed, as shown to the operator. */
  cause: string;
  /** Set once closed. */
  closed: { status: number; annotation: string } | null;
  /** Whether the wait is for robots.txt or the transport. */
  waitingOn: 'robots' | 'transport' | null;
  /** Its robots.txt got no answer before the host ever answered: quick re-fetches, then closed (robotsUnreachable). */
  unanswered?: boolean;
}

/** A fetch that got no answer at all: its transport status (-1…-4), its cause in words, and whether DNS said the name does not exist. */
export interface TransportFailure {
  status: number;
  cause: string;
  nameNotFound?: boolean;
}

/** Heritrix's -61: a prerequisite (robots.txt) could not be had. */
export const ROBOTS_UNAVAILABLE_STATUS = -61;
export const ROBOTS_UNAVAILABLE = 'robotsUnavailable';
/** Annotation of URIs disposed of because their host stopped answering. */
export const HOST_UNREACHABLE = 'hostUnreachable';
/**
 * Longest wait before re-fetching the robots.txt of a host that has never
 * answered (doubling per retry): with the default 2 retries a crawl of dead
 * seeds ends in seconds, not the minutes robots.unavailable.retryDelayMs
 * gives a host that is up but failing.
 */
export const UNANSWERED_RETRY_DELAY_MS = 2000;

const TRANSPORT_NAMES: Readonly<Record<number, string>> = Object.freeze({ [-1]: 'DNS lookup failed', [-2]: 'connect failed', [-3]: 'connection lost', [-4]: 'timeout' });

export class HostHealth {
  readonly #o: (host: string) => HostHealthOptions;
  readonly #hosts = new Map<string, HostRecord>();
  readonly #onChange: (host: string, record: HostRecord) => void;
  #closedCount = 0;

  /** `onChange` sees every record that changed (to persist it, or to tell the operator). */
  constructor(opts: HostHealthOptions | ((host: string) => HostHealthOptions), onChange: (host: string, record: HostRecord) => void = () => {}) {
    this.#o = typeof opts === 'function' ? opts : () => opts;
    this.#onChange = onChange;
  }

  /** Whether any host is closed (callers skip their per-URL check while none is). */
  get anyClosed(): boolean {
    return this.#closedCount > 0;
  }

  verdict(host: string): HostVerdict {
    const closed = this.#hosts.get(host)?.closed;
    return closed ? { kind: 'closed', ...closed } : OPEN;
  }

  /** A fetch of `host` failed at the transport level with Heritrix status `status` (-1…-4); `cause` in words (`connection refused`). */
  transportFailed(host: string, status: number, now: number, cause?: string): FailureDecision {
    const r = this.#record(host);
    if (r.closed) return { kind: 'closed', ...r.closed };
    // A failure that lands while the host already waits (several connections in flight) is the same round.
    if (r.waitingOn === 'transport' && now < r.untilMs) return { kind: 'wait', untilMs: r.untilMs };
    r.cause = cause ?? `${status} ${TRANSPORT_NAMES[status] ?? 'failed'}`;
    const o = this.#o(host);
    if (r.rounds >= o.maxRetries) return this.#close(host, r, status, HOST_UNREACHABLE);
    r.rounds++;
    r.untilMs = now + o.retryDelayMs;
    r.waitingOn = 'transport';
    this.#onChange(host, r);
    return { kind: 'wait', untilMs: r.untilMs };
  }

  /** The host answered (any HTTP status): its failed rounds start again from 0. */
  answered(host: string): void {
    const r = this.#hosts.get(host);
    if (r === undefined || r.closed || (r.rounds === 0 && r.waitingOn !== 'transport')) return;
    r.rounds = 0;
    if (r.waitingOn === 'transport') {
      r.waitingOn = null;
      r.untilMs = 0;
    }
    this.#onChange(host, r);
  }

  /** robots.txt answered `status` (5xx, 429…) or, with null, could not be fetched at all. */
  robotsUnavailable(host: string, status: number | null, now: number): RobotsDecision {
    return this.#robotsFailed(host, status === null ? 'robots.txt unreachable' : `robots.txt ${status}`, now);
  }

  /**
   * robots.txt got no answer at all: `failure` is the transport's status
   * (-1…-4) and its cause in words (`connection refused`). A host that has
   * not answered yet in this crawl (`firstContact`: its robots.txt was never
   * had) is most likely down or mistyped, not busy: its re-fetches come
   * quickly (at most UNANSWERED_RETRY_DELAY_MS, doubling) and when they are
   * spent it is closed with the transport's status, whatever the robots
   * policy (there is nothing to crawl). Such a host whose name DNS says does
   * not exist is closed at once: resolvers cache that answer (RFC 2308), so
   * the re-fetches would only hold the crawl's end (a page embedding an image
   * from a host that does not resolve kept a crawl 6 s past its last page).
   * A host that answered before gets the patient retries of an unavailable
   * robots.txt.
   */
  robotsUnreachable(host: string, failure: TransportFailure, now: number, firstContact: boolean): RobotsDecision {
    const r = this.#record(host);
    if (r.closed) return { kind: 'closed', ...r.closed };
    if (r.robotsFailures === 0) r.unanswered = firstContact;
    const cause = `${failure.cause} fetching robots.txt`;
    if (r.unanswered !== true) return this.#robotsFailed(host, cause, now);
    r.cause = cause;
    const { retries, retryDelayMs } = this.#o(host).robots;
    if (r.robotsFailures >= retries || failure.nameNotFound === true) return this.#close(host, r, failure.status, HOST_UNREACHABLE);
    r.untilMs = now + Math.min(retryDelayMs, UNANSWERED_RETRY_DELAY_MS) * 2 ** r.robotsFailures;
    r.robotsFailures++;
    r.waitingOn = 'robots';
    this.#onChange(host, r);
    return { kind: 'wait', untilMs: r.untilMs };
  }

  #robotsFailed(host: string, cause: string, now: number): RobotsDecision {
    const r = this.#record(host);
    if (r.closed) return { kind: 'closed', ...r.closed };
    r.cause = cause;
    const { retries, retryDelayMs, policy } = this.#o(host).robots;
    if (r.robotsFailures >= retries) {
      if (policy === 'disallow') return this.#close(host, r, ROBOTS_UNAVAILABLE_STATUS, ROBOTS_UNAVAILABLE);
      r.robotsFailures = 0;
      r.waitingOn = null;
      r.untilMs = 0;
      this.#onChange(host, r);
      return { kind: 'allow' };
    }
    r.untilMs = now + retryDelayMs * 2 ** r.robotsFailures;
    r.robotsFailures++;
    r.waitingOn = 'robots';
    this.#onChange(host, r);
    return { kind: 'wait', untilMs: r.untilMs };
  }

  /** robots.txt was had (any answer that is not "unavailable"): the robots count starts again. */
  robotsAvailable(host: string): void {
    const r = this.#hosts.get(host);
    if (r === undefined || r.closed || (r.robotsFailures === 0 && r.waitingOn !== 'robots')) return;
    r.robotsFailures = 0;
    r.unanswered = false;
    if (r.waitingOn === 'robots') {
      r.waitingOn = null;
      r.untilMs = 0;
    }
    this.#onChange(host, r);
  }

  /** Hosts inside a wait at `now`, soonest first. */
  waiting(now: number): WaitingHost[] {
    const out: WaitingHost[] = [];
    for (const [host, r] of this.#hosts) {
      if (r.closed || r.waitingOn === null || r.untilMs <= now) continue;
      const robots = r.waitingOn === 'robots';
      const o = this.#o(host);
      out.push({ host, reason: r.cause, untilMs: r.untilMs, retry: robots ? r.robotsFailures : r.rounds, of: robots ? o.robots.retries : o.maxRetries });
    }
    return out.sort((a, b) => a.untilMs - b.untilMs || (a.host < b.host ? -1 : 1));
  }

  /** Hosts closed so far, by name. */
  closed(): ClosedHost[] {
    const out: ClosedHost[] = [];
    for (const [host, r] of this.#hosts) if (r.closed) out.push({ host, ...r.closed, cause: r.cause });
    return out.sort((a, b) => (a.host < b.host ? -1 : 1));
  }

  /** Bring back a host's record saved by an earlier run. */
  restore(host: string, record: HostRecord): void {
    if (record.closed && !this.#hosts.get(host)?.closed) this.#closedCount++;
    this.#hosts.set(host, { ...record });
  }

  /**
   * Take in a host's record as another process of the crawl saved it, when
   * it is further along than this one's (closed, or more failures in a
   * row): the counts are the crawl's, not each node's.
   */
  merge(host: string, stored: HostRecord): void {
    const r = this.#hosts.get(host);
    if (r?.closed) return;
    if (r === undefined || stored.closed || stored.robotsFailures > r.robotsFailures || stored.rounds > r.rounds) this.restore(host, stored);
  }

  #close(host: string, r: HostRecord, status: number, annotation: string): ClosedVerdict {
    r.closed = { status, annotation };
    this.#closedCount++;
    r.waitingOn = null;
    r.untilMs = 0;
    this.#onChange(host, r);
    return { kind: 'closed', status, annotation };
  }

  #record(host: string): HostRecord {
    let r = this.#hosts.get(host);
    if (r === undefined) {
      r = { rounds: 0, robotsFailures: 0, untilMs: 0, cause: '', closed: null, waitingOn: null };
      this.#hosts.set(host, r);
    }
    return r;
  }
}

const OPEN: HostVerdict = Object.freeze({ kind: 'open' });

/** `127.0.1.3:8080 robots.txt 500, retry 2/2 at 14:22:05` */
export function describeWaiting(w: WaitingHost): string {
  return `${w.host} ${w.reason}, retry ${w.retry}/${w.of} at ${new Date(w.untilMs).toTimeString().slice(0, 8)}`;
}
