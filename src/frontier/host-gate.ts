/**
 * The host gate: politeness per server, independent of queue assignment.
 * Whatever queue a URL sits in (ELF hash spreads one host over many), no
 * host gets more than `maxConnectionsPerHost` fetches in flight (one number
 * for all, or a host's own under the profile's overrides), and after a
 * fetch of a host completes with delay d no new fetch of it starts before d
 * has passed. Queues whose head is blocked on a full host park here and are
 * handed back when a connection frees up.
 */

interface HostState<T> {
  inFlight: number;
  /** No new fetch before this epoch ms. */
  openAt: number;
  /** Waiters parked while the host is at its connection limit. */
  parked: T[];
}

/** Result of asking whether a host may be fetched now. */
export type GateAnswer = { kind: 'open' } | { kind: 'full' } | { kind: 'later'; at: number };

/** Fetches in flight allowed per host: one number, or a function of the host (`hostname:port`). */
export type ConnectionLimit = number | ((host: string) => number);

export class HostGate<T> {
  readonly #maxConnections: (host: string) => number;
  readonly #hosts = new Map<string, HostState<T>>();

  constructor(maxConnectionsPerHost: ConnectionLimit) {
    const max = maxConnectionsPerHost;
    this.#maxConnections = typeof max === 'number' ? () => max : max;
  }

  check(host: string, now: number): GateAnswer {
    const state = this.#hosts.get(host);
    if (state === undefined) return { kind: 'open' };
    if (state.inFlight >= this.#maxConnections(host)) return { kind: 'full' };
    if (state.openAt > now) return { kind: 'later', at: state.openAt };
    if (state.inFlight === 0 && state.parked.length === 0) this.#hosts.delete(host); // forget idle hosts
    return { kind: 'open' };
  }

  acquire(host: string): void {
    const state = this.#hosts.get(host);
    if (state === undefined) this.#hosts.set(host, { inFlight: 1, openAt: 0, parked: [] });
    else state.inFlight++;
  }

  /** A fetch of `host` completed; returns the waiters to reconsider. */
  release(host: string, now: number, delayMs: number): T[] {
    const state = this.#hosts.get(host);
    if (state === undefined) return [];
    state.inFlight = Math.max(0, state.inFlight - 1);
    state.openAt = Math.max(state.openAt, now + delayMs);
    const parked = state.parked;
    state.parked = [];
    return parked;
  }

  /** Epoch ms before which no new fetch of `host` starts (0 when untracked). */
  openAt(host: string): number {
    return this.#hosts.get(host)?.openAt ?? 0;
  }

  /** Keep `host` closed until `at` (a delay carried over from an earlier run). */
  holdUntil(host: string, at: number): void {
    const state = this.#hosts.get(host);
    if (state === undefined) this.#hosts.set(host, { inFlight: 0, openAt: at, parked: [] });
    else state.openAt = Math.max(state.openAt, at);
  }

  /** Wait for a connection of a full host. */
  park(host: string, waiter: T): void {
    this.#hosts.get(host)?.parked.push(waiter);
  }

  inFlight(host: string): number {
    return this.#hosts.get(host)?.inFlight ?? 0;
  }

  /** Hosts currently tracked (busy, parked on or still inside a delay). */
  get size(): number {
    return this.#hosts.size;
  }
}
