/**
 * From the stored HTTP payload of a WARC response to the page's text:
 * remove chunked framing if the record kept it, undo Content-Encoding
 * (gzip, deflate, br — warcio.js does not decode br, and node:zlib is native
 * and faster than warcio's pako anyway), then decode the charset the way a
 * browser would (Content-Type, BOM, then <meta> in the first 1024 bytes).
 */
import * as zlib from 'node:zlib';
import { BodyDecodeError } from './errors.js';

export interface BodyDecodeOptions {
  /** Inflated bodies larger than this are refused (zip bombs); default 64 MiB. */
  maxDecodedBytes: number;
}

export const DEFAULT_BODY_DECODE: BodyDecodeOptions = { maxDecodedBytes: 64 * 1024 * 1024 };

/**
 * Remove HTTP/1.1 chunked framing. Many tools store the body already
 * de-chunked but keep the Transfer-Encoding header, so a body whose first
 * line is not a chunk size is returned unchanged. A truncated last chunk
 * keeps what arrived, as a browser would render it.
 */
export function dechunk(body: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let pos = 0;
  let total = 0;
  while (pos < body.length) {
    const lineEnd = indexOfCrlf(body, pos);
    const size = lineEnd < 0 ? -1 : parseChunkSize(body, pos, lineEnd);
    if (size < 0) {
      if (parts.length === 0) return body; // not chunked after all
      break;
    }
    if (size === 0) break;
    const start = lineEnd + 2;
    const end = Math.min(start + size, body.length);
    parts.push(body.subarray(start, end));
    total += end - start;
    pos = end + 2;
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function indexOfCrlf(b: Uint8Array, from: number): number {
  // A chunk-size line is short; do not scan a whole unchunked body for CRLF.
  const limit = Math.min(b.length - 1, from + 1024);
  for (let i = from; i < limit; i++) if (b[i] === 13 && b[i + 1] === 10) return i;
  return -1;
}

/** Hex size before any `;extension`, or -1 when the line is not a chunk size. */
function parseChunkSize(b: Uint8Array, from: number, to: number): number {
  let size = 0;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    let v: number;
    if (c >= 48 && c <= 57) v = c - 48;
    else if (c >= 97 && c <= 102) v = c - 87;
    else if (c >= 65 && c <= 70) v = c - 55;
    else if (c === 59 || c === 32 || c === 9) break; // ';' extension or padding
    else return -1;
    size = size * 16 + v;
    digits++;
    if (digits > 12) return -1;
  }
  return digits === 0 ? -1 : size;
}

/**
 * Undo the Content-Encoding list, last applied first. Bodies that claim gzip
 * but do not start with the gzip magic are passed through: servers lie, and
 * the stored bytes are what the browser would have tried to show.
 */
export function decodeContent(
  body: Uint8Array,
  contentEncoding: string | null,
  opts: BodyDecodeOptions = DEFAULT_BODY_DECODE,
): Uint8Array {
  if (!contentEncoding || body.length === 0) return body;
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'identity' && s !== 'none');
  let data = body;
  // A truncated capture is common; Z_SYNC_FLUSH returns what inflated instead of throwing.
  const zopts = { maxOutputLength: opts.maxDecodedBytes, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!;
    try {
      if (coding === 'gzip' || coding === 'x-gzip') {
        if (data[0] !== 0x1f || data[1] !== 0x8b) continue;
        data = zlib.gunzipSync(data, zopts);
      } else if (coding === 'deflate') {
        // RFC says zlib-wrapped; many servers send raw deflate.
        data = (data[0]! & 0x0f) === 8 ? zlib.inflateSync(data, zopts) : zlib.inflateRawSync(data, zopts);
      } else if (coding === 'br') {
        data = zlib.brotliDecompressSync(data, {
          maxOutputLength: opts.maxDecodedBytes,
          finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
        });
      } else {
        throw new BodyDecodeError(`unsupported Content-Encoding "${coding}"`);
      }
    } catch (err) {
      if (err instanceof BodyDecodeError) throw err;
      throw new BodyDecodeError(`cannot decode Content-Encoding "${coding}": ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return data;
}

/** The `charset` parameter of a Content-Type value, or null. */
export function charsetFromContentType(contentType: string | null): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * The encoding to decode an HTML body with, in the order of the HTML
 * standard's sniffing: BOM, transport layer, <meta> prescan, then UTF-8
 * (our default; the standard's locale-dependent default is usually
 * windows-1252, but most of today's web is UTF-8).
 */
export function sniffHtmlCharset(contentType: string | null, body: Uint8Array): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  const fromHeader = charsetFromContentType(contentType);
  if (fromHeader && isKnownEncoding(fromHeader)) return fromHeader;
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024)).toString('latin1');
  const m = /<meta[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)/i.exec(head);
  if (m) {
    const label = m[1]!.toLowerCase();
    // A <meta> cannot truthfully declare UTF-16 (it would not be readable as ASCII): the standard says UTF-8.
    if (label.startsWith('utf-16')) return 'utf-8';
    if (isKnownEncoding(label)) return label;
  }
  return 'utf-8';
}

function isKnownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** Decode with replacement characters, never throwing: a few bad bytes must not lose a page's links. */
export function decodeText(body: Uint8Array, charset: string): string {
  if (charset === 'utf-8' || charset === 'utf8') {
    return Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8');
  }
  return new TextDecoder(charset).decode(body);
}

/** For a record without Content-Type: does the body start like an HTML document? */
export function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 256))
    .toString('latin1')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}
