/**
 * The fixture server's record of every request it served, for checking a
 * crawler from the outside: which URLs it asked for, with which User-Agent,
 * and — per host — when each request started and ended and how many
 * requests to that host were in flight at its start (itself included), so
 * politeness (connections per host, gaps between fetches) is measured by the
 * server rather than trusted from the crawler.
 */
import type { Clock } from '../core/clock.js';

export interface RequestLogEntry {
  /** host:port as in the Host header (the server's own host:port when the header is missing). */
  host: string;
  /** Request target as received: path and query. */
  path: string;
  /** Epoch milliseconds (fractional) when the request head arrived. */
  startMs: number;
  /** Epoch milliseconds (fractional) when the response was written to the socket, or the connection dropped. */
  endMs: number;
  /**
   * Epoch milliseconds (fractional) when the server began the write that
   * handed the response's last byte to the kernel (endMs when it never
   * did): the client cannot have had the whole response earlier, so a gap
   * measured from here is never shorter than the one the client left.
   * endMs can be tens of ms later on a loaded machine: the write wakes the
   * client, the kernel may run it in place of this process, and the
   * server logs the end only once it gets a CPU again.
   */
  lastByteMs: number;
  /** Status sent; 0 when the client went away before the response was complete. */
  status: number;
  userAgent: string;
  /** Requests to the same host in flight when this one started, this one included (so ≥ 1). */
  inFlightAtStart: number;
  /** 'gzip' when the compressed body was sent. */
  contentEncoding: 'gzip' | 'identity';
  /** Request method (GET or HEAD for a crawler). */
  method: string;
}

/** A started request; call `finish` exactly once (later calls are ignored). */
export interface RequestTicket {
  /**
   * The whole response was handed to the socket, now: its end, as far as the
   * client can tell. Optional; without it the end is when `finish` runs.
   */
  sent(): void;
  /** The write that hands the response's last byte to the kernel starts now (a later call replaces it). */
  lastWrite(): void;
  finish(status: number, contentEncoding: 'gzip' | 'identity'): void;
}

export interface RequestStart {
  /** The host the request was served by, as the server knows it: in-flight counts are kept per this key. */
  serverHost: string;
  hostHeader: string | undefined;
  path: string;
  method: string;
  userAgent: string;
}

export class RequestLog {
  /** Completed requests, in the order they ended. */
  private log: RequestLogEntry[] = [];
  private readonly inFlight = new Map<string, number>();

  /** `clock` gives epoch milliseconds; injected so tests can drive it. */
  constructor(private readonly clock: Clock) {}

  begin(start: RequestStart): RequestTicket {
    const inFlight = (this.inFlight.get(start.serverHost) ?? 0) + 1;
    this.inFlight.set(start.serverHost, inFlight);
    const startMs = this.clock.now();
    let done = false;
    let sentMs: number | null = null;
    let lastByteMs: number | null = null;
    const leave = (): void => {
      this.inFlight.set(start.serverHost, (this.inFlight.get(start.serverHost) ?? 1) - 1);
    };
    return {
      // A response's 'close' comes a loop turn after its bytes were written (the write's
      // callback), which on a loaded machine was seen 130 ms after the client had read them and
      // sent its next request: the log then showed that request overlapping, or too soon.
      sent: () => {
        if (done || sentMs !== null) return;
        sentMs = this.clock.now();
        leave();
      },
      lastWrite: () => {
        lastByteMs = this.clock.now();
      },
      finish: (status, contentEncoding) => {
        if (done) return;
        done = true;
        if (sentMs === null) leave();
        const endMs = sentMs ?? this.clock.now();
        this.log.push({
          host: start.hostHeader ?? start.serverHost,
          path: start.path,
          startMs,
          endMs,
          lastByteMs: lastByteMs ?? endMs,
          status,
          userAgent: start.userAgent,
          inFlightAtStart: inFlight,
          contentEncoding,
          method: start.method,
        });
      },
    };
  }

  /** The completed requests so far (a live array: it grows as requests end). */
  get entries(): RequestLogEntry[] {
    return this.log;
  }

  /**
   * Hands over the log so far and starts a new one — between two crawls of
   * the same web (the benchmark). In-flight counts are unaffected.
   */
  take(): RequestLogEntry[] {
    const taken = this.log;
    this.log = [];
    return taken;
  }

  /** Requests to one host currently in flight. */
  inFlightTo(serverHost: string): number {
    return this.inFlight.get(serverHost) ?? 0;
  }
}

/** Wall-clock epoch milliseconds with sub-millisecond resolution. */
export const preciseClock: Clock = Object.freeze({ now: () => performance.timeOrigin + performance.now() });
