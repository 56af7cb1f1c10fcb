/**
 * The crawler's HTTP client: one GET per call over undici's dispatch API,
 * keep-alive pools per origin (an Agent), HTTP/1.1 only, never following
 * redirects. It returns the response exactly as archived — raw headers in
 * their original case and order, body de-chunked but still content-encoded,
 * with its sha1 payload digest and the exact request head that was sent.
 * A 404 or 500 is a result; only transport failures throw FetchError.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';
import { ArchiverError } from '../core/errors.js';
import type { HttpExchange } from '../core/exchange.js';
import { BodySink } from './body-sink.js';
import { ExchangeHandler } from './exchange-handler.js';
import { fetchError } from './fetch-errors.js';
import { RequestHeadRecorder, reconstructRequestHead } from './request-head.js';

export interface FetcherOptions {
  /** Sent as User-Agent (the profile requires a contact URL in it). */
  userAgent: string;
  /** Sent as From when set. */
  from?: string;
  /** Connect, response-headers and body-idle timeouts, each, in ms. */
  fetchTimeoutMs: number;
  /**
   * Deadline for a whole fetch, connect to last body byte: a body trickling
   * one byte per second never trips the idle timeout. Default
   * 10 × fetchTimeoutMs (Heritrix: 20 min total against a 20 s socket timeout).
   */
  maxFetchDurationMs?: number;
  /** Bodies are cut here (truncated "length"); 0 = unlimited. */
  maxBodyBytes: number;
  /** Where bodies above memoryBodyLimitBytes are spilled; created on demand. */
  tempDir: string;
  /** Custom DNS lookup (same signature as dns.lookup); tests and the demo map names to 127.0.0.x. */
  lookup?: LookupFunction;
  /** Keep-alive connections per origin (scheme+host+port). */
  connectionsPerOrigin: number;
  /** Bodies up to this size stay in memory; default 1 MiB. */
  memoryBodyLimitBytes?: number;
}

export interface FetchCallOptions {
  signal?: AbortSignal;
  /** Overrides the User-Agent for this request (robots masquerade). */
  userAgent?: string;
  /** This URL's own limits (a profile override); the fetcher's options otherwise. */
  limits?: FetchLimits;
  /** A POST with this body and Content-Type instead of a GET (a rendered page's request); the exchange's requestHead then ends with the body. */
  post?: { body: Buffer; type: string };
}

/** Limits of one fetch, as FetcherOptions names them. */
export type FetchLimits = Partial<Pick<FetcherOptions, 'maxBodyBytes' | 'fetchTimeoutMs' | 'maxFetchDurationMs'>>;

/**
 * undici's Agent from its own module: the package's index also loads fetch,
 * WebSocket, caches and mocks, which no crawl uses — ~10 MB of RSS and a
 * tenth of a second of start-up on every run. undici 7 has no exports map,
 * so the file is part of its published layout.
 */
const Agent = createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
type Agent = UndiciAgent;

const DEFAULT_MEMORY_BODY_LIMIT_BYTES = 1024 * 1024;
const DEFAULT_DURATION_PER_TIMEOUT = 10;
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
// zstd is never offered: pywb cannot replay it.
const ACCEPT_ENCODING = 'gzip, deflate, br';

export class Fetcher {
  readonly #opts: Readonly<FetcherOptions> & { memoryBodyLimitBytes: number; maxFetchDurationMs: number };
  /** One pool per fetch timeout: undici sets the connect timeout per pool. The options' own is made at once. */
  readonly #agents = new Map<number, Agent>();
  readonly #heads = new RequestHeadRecorder();
  #closed = false;

  constructor(opts: FetcherOptions) {
    validate(opts);
    this.#opts = {
      ...opts,
      memoryBodyLimitBytes: opts.memoryBodyLimitBytes ?? DEFAULT_MEMORY_BODY_LIMIT_BYTES,
      maxFetchDurationMs: opts.maxFetchDurationMs ?? DEFAULT_DURATION_PER_TIMEOUT * opts.fetchTimeoutMs,
    };
    this.#agentFor(opts.fetchTimeoutMs);
  }

  #agentFor(timeoutMs: number): Agent {
    let agent = this.#agents.get(timeoutMs);
    if (agent !== undefined) return agent;
    agent = new Agent({
      connections: this.#opts.connectionsPerOrigin,
      pipelining: 1,
      allowH2: false,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: {
        timeout: timeoutMs,
        lookup: dnsFailuresTagged(this.#opts.lookup ?? (dnsLookup as LookupFunction)),
        // An archive records what the server serves, certificate or not (as Heritrix does).
        rejectUnauthorized: false,
      },
    });
    this.#agents.set(timeoutMs, agent);
    return agent;
  }

  async fetch(url: string, call: FetchCallOptions = {}): Promise<HttpExchange> {
    if (this.#closed) throw fetchError('other', `fetcher closed; cannot fetch ${url}`);
    const target = parseFetchable(url);
    if (call.signal?.aborted) throw fetchError('aborted', `fetch of ${url} aborted`, call.signal.reason);
    const headers = this.#requestHeaders(call.userAgent);
    const post = call.post;
    if (post !== undefined) headers.push(['Content-Type', post.type]);
    const sink = new BodySink({ tempDir: this.#opts.tempDir, memoryLimitBytes: this.#opts.memoryBodyLimitBytes });
    const limits = call.limits;
    const timeoutMs = limits?.fetchTimeoutMs ?? this.#opts.fetchTimeoutMs;
    const handler = new ExchangeHandler({
      url: target,
      sink,
      maxBodyBytes: limits?.maxBodyBytes ?? this.#opts.maxBodyBytes,
      recorder: this.#heads,
      signal: call.signal,
      maxDurationMs: limits?.maxFetchDurationMs ?? this.#opts.maxFetchDurationMs,
      idleTimeoutMs: timeoutMs,
    });
    const agent = this.#agentFor(timeoutMs);
    const startedAt = new Date();
    const t0 = performance.now();
    agent.dispatch(
      { origin: target.origin, path: handler.path, method: post === undefined ? 'GET' : 'POST', headers: headers.flat(), ...(post !== undefined ? { body: post.body } : {}) },
      handler,
    );
    const r = await handler.result;
    const head = r.requestHead ?? reconstructRequestHead(target, headers, post === undefined ? 'GET' : 'POST');
    return {
      url,
      requestHead: post === undefined ? head : Buffer.concat([head, post.body]),
      status: r.status,
      statusText: r.statusText,
      httpVersion: '1.1',
      responseHeaders: r.responseHeaders,
      body: r.body,
      truncated: r.truncated,
      payloadDigest: r.payloadDigest,
      ip: r.ip,
      startedAt,
      durationMs: performance.now() - t0,
    };
  }

  /** Close idle connections and stop listening; fetches in flight are allowed to finish. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#agents.values()].map((a) => a.close()));
    this.#heads.close();
  }

  #requestHeaders(userAgent: string | undefined): Array<[string, string]> {
    const h: Array<[string, string]> = [['User-Agent', userAgent ?? this.#opts.userAgent]];
    if (this.#opts.from !== undefined && this.#opts.from !== '') h.push(['From', this.#opts.from]);
    h.push(['Accept', ACCEPT], ['Accept-Encoding', ACCEPT_ENCODING]);
    return h;
  }
}

/** A URL we can request, or FetchError -7. */
function parseFetchable(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw fetchError('unfetchable', `unparseable URL: ${url}`, err);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw fetchError('unfetchable', `unsupported scheme ${parsed.protocol} in ${url}`);
  }
  return parsed;
}

/**
 * Wrap the lookup so its failures arrive already classified as DNS (-1):
 * a custom lookup may fail with any error, and net hands it on unchanged.
 */
function dnsFailuresTagged(lookup: LookupFunction): LookupFunction {
  return ((hostname: string, options: object, callback: (err: Error | null, ...rest: unknown[]) => void) => {
    lookup(hostname, options as never, ((err: NodeJS.ErrnoException | null, ...rest: unknown[]) => {
      if (err) callback(fetchError('dns', `DNS lookup of ${hostname} failed: ${err.message}`, err));
      else callback(null, ...rest);
    }) as never);
  }) as LookupFunction;
}

function validate(o: FetcherOptions): void {
  const bad = (field: string, why: string): never => {
    throw new ArchiverError('ARCHIVER_INVALID_ARGUMENT', `FetcherOptions.${field} ${why}`);
  };
  if (typeof o.userAgent !== 'string' || o.userAgent === '') bad('userAgent', 'must be a non-empty string');
  if (!(Number.isFinite(o.fetchTimeoutMs) && o.fetchTimeoutMs > 0)) bad('fetchTimeoutMs', 'must be > 0');
  if (!(Number.isInteger(o.maxBodyBytes) && o.maxBodyBytes >= 0)) bad('maxBodyBytes', 'must be an integer >= 0');
  if (!(Number.isInteger(o.connectionsPerOrigin) && o.connectionsPerOrigin >= 1)) bad('connectionsPerOrigin', 'must be an integer >= 1');
  if (o.memoryBodyLimitBytes !== undefined && !(Number.isInteger(o.memoryBodyLimitBytes) && o.memoryBodyLimitBytes >= 0)) {
    bad('memoryBodyLimitBytes', 'must be an integer >= 0');
  }
  if (o.maxFetchDurationMs !== undefined && !(Number.isFinite(o.maxFetchDurationMs) && o.maxFetchDurationMs >= 0)) {
    bad('maxFetchDurationMs', 'must be >= 0');
  }
  if (typeof o.tempDir !== 'string' || o.tempDir === '') bad('tempDir', 'must be a directory path');
}
