/**
 * Recovers the exact request head undici wrote on the socket, for the WARC
 * `request` record. undici decides some header lines itself (`host`,
 * `connection: keep-alive` or `close` depending on the socket's state), so
 * rebuilding them would be a guess; instead we listen on its
 * `undici:client:sendHeaders` diagnostics channel, which carries the very
 * string passed to socket.write() and the socket (hence the remote IP).
 *
 * Matching a message to its fetch relies on undici calling the handler's
 * onRequestStart synchronously right before it builds and publishes the head
 * (client-h1 writeH1): the handler registers itself there, the next message
 * for the same origin and path is its own.
 */
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const CHANNEL = 'undici:client:sendHeaders';

/** What a fetch in flight wants to be told once its head is on the wire. */
export interface HeadListener {
  readonly origin: string;
  readonly path: string;
  headSent(head: Buffer, remoteIp: string | null): void;
}

interface SendHeadersMessage {
  request: { origin?: unknown; path?: unknown };
  headers: string;
  socket: Socket;
}

export class RequestHeadRecorder {
  #pending: HeadListener | null = null;
  readonly #onMessage = (message: unknown): void => {
    const pending = this.#pending;
    if (pending === null) return;
    const msg = message as SendHeadersMessage;
    if (String(msg.request.origin) !== pending.origin || msg.request.path !== pending.path) return;
    this.#pending = null;
    // undici terminates the head with one more CRLF in the same write (writeBuffer).
    pending.headSent(Buffer.from(`${msg.headers}\r\n`, 'latin1'), msg.socket.remoteAddress ?? null);
  };

  constructor() {
    diagnostics.subscribe(CHANNEL, this.#onMessage);
  }

  /** Called from the handler's onRequestStart: the next matching head is this listener's. */
  expect(listener: HeadListener): void {
    this.#pending = listener;
  }

  /** Forget a listener whose head never went out (aborted at start). */
  cancel(listener: HeadListener): void {
    if (this.#pending === listener) this.#pending = null;
  }

  close(): void {
    this.#pending = null;
    diagnostics.unsubscribe(CHANNEL, this.#onMessage);
  }
}

/**
 * The head as undici would write it on a fresh keep-alive socket; used only
 * if the diagnostics message never arrived, so the WARC still gets a request.
 */
export function reconstructRequestHead(url: URL, headers: ReadonlyArray<readonly [string, string]>, method = 'GET'): Buffer {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
  for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
  return Buffer.from(`${head}\r\n`, 'latin1');
}
