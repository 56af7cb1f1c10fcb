/**
 * What one HTTP fetch produced, handed from the fetcher to the WARC writer,
 * the link extractor and the crawl log. The body is kept exactly as received
 * on the wire minus transfer-encoding (content-encoding kept), in memory when
 * small and in a temporary file when large.
 */

/** A stored response body. Read it as often as needed; dispose() when done. */
export interface BodyStore {
  /** Stored length in bytes (after truncation). */
  readonly size: number;
  /** Stream the stored bytes. */
  stream(): AsyncIterable<Uint8Array>;
  /** The first `maxBytes` stored bytes (all when smaller). */
  head(maxBytes: number): Promise<Buffer>;
  /**
   * As head(), in memory nobody else holds, read for this call alone: the
   * caller may move its buffer to another thread. Absent where head() may
   * give the store's own memory (then the caller copies).
   */
  ownHead?(maxBytes: number): Promise<Uint8Array<ArrayBuffer>>;
  /** Release memory / delete the temporary file. Idempotent. */
  dispose(): Promise<void>;
}

export interface HttpExchange {
  /** The URL requested, exactly. */
  url: string;
  /** The exact request head sent: request line, headers, blank line. */
  requestHead: Buffer;
  status: number;
  statusText: string;
  /** "1.1" (HTTP/2 responses are written as HTTP/1.1). */
  httpVersion: string;
  /** Response headers as received, original case and order, pseudo-headers dropped. */
  responseHeaders: ReadonlyArray<readonly [string, string]>;
  body: BodyStore;
  /** Why the body is shorter than served, if it is (WARC-Truncated). */
  truncated: 'length' | 'time' | 'disconnect' | null;
  /** sha1 of the stored body bytes, as `sha1:BASE32` (the WARC payload digest). */
  payloadDigest: string;
  /** Remote IP address the bytes came from. */
  ip: string | null;
  /** When the request was started. */
  startedAt: Date;
  /** From request start to the last body byte. */
  durationMs: number;
}

/** Case-insensitive lookup of the first header with this name. */
export function headerValue(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  const lower = name.toLowerCase();
  // Indexed, and a name lowered only at the right length: this runs several times per capture, mostly unoptimised.
  for (let i = 0; i < headers.length; i++) {
    const pair = headers[i]!;
    if (pair[0].length === lower.length && pair[0].toLowerCase() === lower) return pair[1];
  }
  return undefined;
}
