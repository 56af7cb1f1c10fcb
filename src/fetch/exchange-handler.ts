/**
 * The undici dispatch handler for one GET: records status and raw headers
 * (original case and order, from controller.rawHeaders), streams the body
 * into a BodySink (which never makes undici wait), cuts it at maxBodyBytes by dropping the
 * connection, and settles once with either a captured response or a
 * FetchError. After the headers have arrived, a body-idle timeout or a lost
 * connection keeps what was received, marked truncated "time"/"disconnect"
 * (WARC-Truncated), instead of discarding a partial capture. A deadline on
 * the whole exchange ends bodies that trickle in too slowly for the idle
 * timeout ever to fire (truncated "time"; before the headers, a timeout).
 *
 * The headers and body-idle timeouts are also kept here, on node's own
 * timers: undici's fire on a coarse clock that ticks every half second, so a
 * fetchTimeoutMs of 200 ms let an idle body run on for up to a second.
 * undici's stay as the backstop.
 */
import type { Dispatcher } from 'undici';
import type { FetchError } from '../core/errors.js';
import type { BodyStore } from '../core/exchange.js';
import type { BodySink } from './body-sink.js';
import { fetchError, failureKindOf, toFetchError } from './fetch-errors.js';
import type { HeadListener, RequestHeadRecorder } from './request-head.js';

type Controller = Dispatcher.DispatchController;

export interface CapturedResponse {
  status: number;
  statusText: string;
  responseHeaders: Array<[string, string]>;
  body: BodyStore;
  payloadDigest: string;
  truncated: 'length' | 'time' | 'disconnect' | null;
  requestHead: Buffer | null;
  ip: string | null;
}

export interface ExchangeHandlerOptions {
  url: URL;
  sink: BodySink;
  /** 0 = unlimited. */
  maxBodyBytes: number;
  recorder: RequestHeadRecorder;
  signal: AbortSignal | undefined;
  /** Deadline for the whole exchange, from dispatch to last body byte; 0 = none. */
  maxDurationMs: number;
  /** Longest wait, once the request is sent, for the headers or for the next body bytes; 0 = undici's alone. */
  idleTimeoutMs?: number;
}

/** Our own reason for aborting the transfer at maxBodyBytes; never surfaces. */
class LengthCut extends Error {}
/** Our own reason for aborting at the exchange deadline or the idle timeout. */
class DeadlineCut extends Error {
  readonly code = 'UND_ERR_HEADERS_TIMEOUT';
}

export class ExchangeHandler implements Dispatcher.DispatchHandler, HeadListener {
  readonly origin: string;
  readonly path: string;
  readonly result: Promise<CapturedResponse>;
  readonly #opts: ExchangeHandlerOptions;
  #resolve!: (r: CapturedResponse) => void;
  #reject!: (e: FetchError) => void;
  #controller: Controller | null = null;
  #settled = false;
  #status = 0;
  #statusText = '';
  #headers: Array<[string, string]> | null = null;
  #truncated: CapturedResponse['truncated'] = null;
  #requestHead: Buffer | null = null;
  #ip: string | null = null;
  readonly #onAbort = (): void => this.#abortByCaller();
  #deadline: NodeJS.Timeout | null = null;
  #idle: NodeJS.Timeout | null = null;

  constructor(opts: ExchangeHandlerOptions) {
    this.#opts = opts;
    this.origin = opts.url.origin;
    this.path = `${opts.url.pathname}${opts.url.search}`;
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    opts.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (opts.maxDurationMs > 0) {
      this.#deadline = setTimeout(() => this.#cut(`exchange took longer than ${opts.maxDurationMs} ms`), opts.maxDurationMs);
      this.#deadline.unref();
    }
  }

  headSent(head: Buffer, remoteIp: string | null): void {
    this.#requestHead = head;
    this.#ip = remoteIp;
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    // Aborted (or already failed) while waiting for a pooled connection: never send it.
    if (this.#settled || this.#opts.signal?.aborted) {
      controller.abort(new Error('fetch aborted before it was sent'));
      this.#abortByCaller();
      return;
    }
    this.#opts.recorder.expect(this);
    const idleMs = this.#opts.idleTimeoutMs ?? 0;
    if (idleMs > 0) {
      this.#idle = setTimeout(() => this.#cut(`nothing received for ${idleMs} ms`), idleMs);
      this.#idle.unref();
    }
  }

  onResponseStart(controller: Controller, statusCode: number, _headers: unknown, statusMessage?: string): void {
    this.#opts.recorder.cancel(this);
    if (this.#settled) return;
    this.#status = statusCode;
    this.#statusText = statusMessage ?? '';
    this.#headers = rawHeaderPairs(controller.rawHeaders);
    this.#idle?.refresh();
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#settled || this.#truncated !== null) return;
    this.#idle?.refresh();
    const { sink, maxBodyBytes } = this.#opts;
    if (maxBodyBytes > 0 && sink.size + chunk.length > maxBodyBytes) {
      const room = maxBodyBytes - sink.size;
      if (room > 0) sink.write(chunk.subarray(0, room));
      this.#truncated = 'length';
      // Stop reading and drop the socket: the rest of the body is not wanted.
      controller.abort(new LengthCut('maxBodyBytes reached'));
      return;
    }
    // Never controller.pause(): see body-sink.ts (a paused undici 7 parser
    // crashes the process when the server closes the connection).
    sink.write(chunk);
  }

  onResponseEnd(): void {
    void this.#complete();
  }

  onResponseError(_controller: Controller, err: Error): void {
    this.#opts.recorder.cancel(this);
    if (this.#settled) return;
    if (err instanceof LengthCut || (err instanceof DeadlineCut && this.#truncated === 'time')) {
      void this.#complete();
      return;
    }
    if (this.#headers !== null) {
      const kind = failureKindOf(err);
      if (kind === 'timeout' || kind === 'connectionLost') {
        this.#truncated = kind === 'timeout' ? 'time' : 'disconnect';
        void this.#complete();
        return;
      }
    }
    void this.#fail(toFetchError(err, this.#opts.url.href));
  }

  /** Past the deadline or the idle timeout: keep what came (truncated "time") or, without headers yet, fail as a timeout. */
  #cut(why: string): void {
    if (this.#settled) return;
    const cut = new DeadlineCut(why);
    if (this.#headers !== null && this.#truncated === null) this.#truncated = 'time';
    if (this.#controller !== null) this.#controller.abort(cut);
    else void this.#fail(toFetchError(cut, this.#opts.url.href));
  }

  #abortByCaller(): void {
    if (this.#settled) return;
    this.#opts.recorder.cancel(this);
    const reason: unknown = this.#opts.signal?.reason;
    void this.#fail(fetchError('aborted', `fetch of ${this.#opts.url.href} aborted`, reason));
    this.#controller?.abort(new Error('fetch aborted'));
  }

  async #complete(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    try {
      const { body, payloadDigest } = await this.#opts.sink.finish();
      this.#resolve({
        status: this.#status,
        statusText: this.#statusText,
        responseHeaders: this.#headers ?? [],
        body,
        payloadDigest,
        truncated: this.#truncated,
        requestHead: this.#requestHead,
        ip: this.#ip,
      });
    } catch (err) {
      this.#reject(fetchError('other', `storing the body of ${this.#opts.url.href} failed`, err));
    }
  }

  async #fail(err: FetchError): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    await this.#opts.sink.discard().catch(() => undefined);
    this.#reject(err);
  }

  #detach(): void {
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#opts.signal?.removeEventListener('abort', this.#onAbort);
  }
}

/**
 * undici's raw header list (name, value, name, value…) as string pairs. The
 * WARC writer encodes header text as UTF-8, so bytes that are valid UTF-8 are
 * decoded as such (they round-trip exactly); anything else falls back to
 * latin1, which at least keeps one character per byte.
 */
function rawHeaderPairs(raw: Controller['rawHeaders']): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (!Array.isArray(raw)) return pairs;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    pairs.push([headerText(raw[i]), headerText(raw[i + 1])]);
  }
  return pairs;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function headerText(v: Buffer | string | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return strictUtf8.decode(v);
  } catch {
    return v.toString('latin1');
  }
}
