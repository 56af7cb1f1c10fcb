/**
 * The HTTP head written into `response`, `revisit` and `request` records.
 *
 * The stored body is the entity as received minus transfer-encoding, so the
 * head must describe those bytes or replay breaks: `Transfer-Encoding` is
 * renamed, `Content-Length` is made the stored length (a differing original
 * is kept under `X-Archive-Orig-Content-Length`), `Content-Encoding` is kept
 * because the body is still encoded. Everything else stays in received order
 * and case, which warcio's own header map would not preserve (it groups
 * repeated names), hence OrderedHeaders.
 */
import { createRequire } from 'node:module';
import { HeadersMultiMap, MapStatusAndHeaders, type HeaderLines, type StatusAndHeaders } from './warcio.js';
import type { HttpExchange } from '../core/exchange.js';

export type HeaderPair = readonly [string, string];

/**
 * A warcio header map that serialises its pairs exactly in the given order,
 * repeated names included. Lookups see the first value of each name.
 */
export class OrderedHeaders extends HeadersMultiMap implements HeaderLines {
  readonly #pairs: ReadonlyArray<HeaderPair>;

  constructor(pairs: ReadonlyArray<HeaderPair>) {
    super();
    // The pairs are read-only: the list is copied, not each pair. Indexed, not for…of or destructured:
    // each step of an iterator is an object in the unoptimised code the threads mostly run.
    this.#pairs = pairs.slice();
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i]!;
      if (!super.has(pair[0])) super.set(pair[0], pair[1]);
    }
  }

  override *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const [k, v] of this.#pairs) yield [k, v];
  }

  appendLines(text: string): string {
    const pairs = this.#pairs;
    for (let i = 0; i < pairs.length; i++) text += `\r\n${pairs[i]![0]}: ${pairs[i]![1]}`;
    return text;
  }
}

/** Status line and fixed-up headers for the response block of a capture. */
export function responseHead(ex: HttpExchange): StatusAndHeaders {
  // HTTP/2 has no reason phrase; a standard one keeps the status line parseable by every reader.
  const reason = ex.statusText !== '' ? ex.statusText : standardReason(ex.status);
  const statusline = `HTTP/1.1 ${ex.status} ${reason}`.trimEnd();
  return new MapStatusAndHeaders({ statusline, headers: new OrderedHeaders(fixResponseHeaders(ex.responseHeaders, ex.body.size)) });
}

/**
 * node's reason phrase for a status, '' for one it does not know. node:http
 * is loaded the first time a response comes without a phrase of its own:
 * the page thread, which makes the records, needs nothing else of it, and
 * loading it (and node:net) there cost ~7 ms of CPU per crawl.
 */
function standardReason(status: number): string {
  statusCodes ??= (createRequire(import.meta.url)('node:http') as typeof import('node:http')).STATUS_CODES;
  return statusCodes[status] ?? '';
}

let statusCodes: Readonly<Record<number, string | undefined>> | null = null;

/**
 * Rename Transfer-Encoding, make Content-Length the stored length (exactly
 * one, at the position of the first original or appended), drop HTTP/2
 * pseudo-headers.
 */
export function fixResponseHeaders(headers: ReadonlyArray<HeaderPair>, storedLength: number): HeaderPair[] {
  const stored = String(storedLength);
  const out: HeaderPair[] = [];
  let lengthWritten = false;
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0];
    const value = headers[i]![1];
    const lower = name.toLowerCase();
    if (lower.startsWith(':')) continue;
    if (lower === 'transfer-encoding') {
      out.push(['X-Archive-Orig-Transfer-Encoding', value]);
    } else if (lower === 'content-length') {
      if (value.trim() === stored && !lengthWritten) {
        out.push([name, stored]);
      } else {
        out.push(['X-Archive-Orig-Content-Length', value]);
        if (!lengthWritten) out.push(['Content-Length', stored]);
      }
      lengthWritten = true;
    } else {
      out.push([name, value]);
    }
  }
  if (!lengthWritten) out.push(['Content-Length', stored]);
  return out;
}

/** What follows the request head's blank line: a POST's body, empty for a GET. */
export function requestBody(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  return end < 0 ? Buffer.alloc(0) : raw.subarray(end + 4);
}

/**
 * Parse the request head exactly as sent ("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
 * into a status line and ordered pairs, so warcio writes the same bytes back.
 */
export function requestHead(raw: Buffer): StatusAndHeaders {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const lines = (end >= 0 ? text.slice(0, end) : text.replace(/\r\n$/, '')).split('\r\n');
  const statusline = lines.shift() ?? '';
  const pairs: HeaderPair[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    pairs.push([line.slice(0, colon), line.slice(colon + 1).trimStart()]);
  }
  return new MapStatusAndHeaders({ statusline, headers: new OrderedHeaders(pairs) });
}
