/**
 * Turns a stored body into bytes to read (the archive keeps the bytes as
 * received): undoes chunked framing a WARC may have kept (dechunk) and
 * Content-Encoding (gzip, x-gzip, deflate in its zlib or raw form, br), with
 * a cap on decoded bytes so a gzip bomb costs at most the cap. A crawl's
 * stored body is decoded as a stream, or in one call when small
 * (decodeBody); bytes already in memory, as the analysis reads them from a
 * WARC, in one call that throws BodyDecodeError (decodeContent). The text
 * comes from charset.ts.
 */
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { BodyDecodeError } from '../core/errors.js';
import { keptZlib } from '../core/kept-zlib.js';
import type { BodyStore } from '../core/exchange.js';
import { headerValue } from '../core/exchange.js';
import { decodeText, detectCharset } from './charset.js';
import { gunzipBufferBytes, inflateIgnoringTrailer } from './gzip-framing.js';

export interface DecodedBytes {
  bytes: Buffer;
  /** Output stopped at maxDecodedBytes. */
  capped: boolean;
  /** False when the encoding was unknown (bytes returned as stored) or the stream was corrupt/truncated (bytes decoded so far). */
  complete: boolean;
}

/**
 * Undo the Content-Encoding of `body` (a header value such as "gzip" or
 * "gzip, br"; missing/identity = as stored), keeping at most maxDecodedBytes.
 */
export async function decodeContentEncoding(
  body: AsyncIterable<Uint8Array>,
  contentEncoding: string | undefined,
  maxDecodedBytes: number,
): Promise<DecodedBytes> {
  const decoded = await decodingStream(body, contentEncoding);
  if (decoded === null) {
    const raw = await collect(body, maxDecodedBytes);
    return { ...raw, complete: false };
  }
  const out = await collect(decoded.stream, maxDecodedBytes).catch(markBrokenPartial);
  return { bytes: out.bytes, capped: out.capped, complete: !decoded.broken() && out.complete };
}

/**
 * `body` with its Content-Encoding undone, as a stream (the reader sets the
 * pace: stopping early inflates nothing more); null when a coding is
 * unknown. `broken()` tells, once the stream ended, whether it was corrupt
 * or truncated (it then ends quietly with what could be decoded).
 */
export async function decodingStream(
  body: AsyncIterable<Uint8Array>,
  contentEncoding: string | undefined,
): Promise<{ stream: AsyncIterable<Uint8Array>; broken: () => boolean } | null> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.some((c) => !KNOWN.has(c))) return null;
  // Codings are listed in the order applied, so they are undone last first.
  let stream: AsyncIterable<Uint8Array> = body;
  let ok = true;
  const markBroken = (): void => {
    ok = false;
  };
  for (const coding of codings.reverse()) stream = await decoderFor(coding, stream, markBroken);
  return { stream, broken: () => !ok };
}

const KNOWN = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

interface Collected {
  bytes: Buffer;
  capped: boolean;
  complete: boolean;
}

function markBrokenPartial(err: unknown): Collected {
  const partial = (err as { partial?: Collected }).partial;
  return partial ?? { bytes: Buffer.alloc(0), capped: false, complete: false };
}

/** Read up to maxBytes; on a stream error, reject carrying what was read as `partial`. */
async function collect(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Collected> {
  const chunks: Buffer[] = [];
  let total = 0;
  let capped = false;
  const it = source[Symbol.asyncIterator]();
  try {
    for (let next = await it.next(); !next.done; next = await it.next()) {
      const chunk = next.value;
      if (total + chunk.length > maxBytes) {
        chunks.push(Buffer.from(chunk.subarray(0, maxBytes - total)));
        total = maxBytes;
        capped = true;
        break;
      }
      chunks.push(Buffer.from(chunk));
      total += chunk.length;
    }
  } catch (err) {
    const partial: Collected = { bytes: Buffer.concat(chunks, total), capped: false, complete: false };
    throw Object.assign(new Error('decoding failed'), { cause: err, partial });
  } finally {
    // Stopping early destroys the decoder: nothing past the cap is inflated.
    await it.return?.();
  }
  return { bytes: Buffer.concat(chunks, total), capped, complete: true };
}

/** A zlib transform for one coding; corrupt or truncated input ends the stream early and calls onBroken. */
async function decoderFor(
  coding: string,
  input: AsyncIterable<Uint8Array>,
  onBroken: () => void,
): Promise<AsyncIterable<Uint8Array>> {
  const source = Readable.from(input, { objectMode: false });
  let transform: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;
  let flushKind: number = zlib.constants.Z_SYNC_FLUSH;
  if (coding === 'br') {
    transform = zlib.createBrotliDecompress();
    flushKind = zlib.constants.BROTLI_OPERATION_FLUSH;
  } else if (coding === 'deflate') {
    // "deflate" is meant to be zlib-wrapped (RFC 9110) but many servers send raw deflate.
    const [first, rest] = await peek(source);
    transform = looksLikeZlib(first) ? zlib.createInflate() : zlib.createInflateRaw();
    return run(rest, transform, flushKind, onBroken);
  } else {
    transform = zlib.createGunzip();
  }
  return run(source, transform, flushKind, onBroken);
}

/**
 * Once the input is spent the decoder is sync-flushed, so a truncated body
 * still yields everything it holds, and only then ended with the default
 * finishing flush, which fails ("unexpected end of file") when the stream
 * never reached its end: that is how a cut body is told from a whole one.
 */
function run(source: Readable, transform: zlib.Zlib & Readable & NodeJS.ReadWriteStream, flushKind: number, onBroken: () => void): AsyncIterable<Uint8Array> {
  async function* thenFlush(input: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    yield* input;
    transform.flush(flushKind);
  }
  pipeline(source, thenFlush, transform, (err) => {
    if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') onBroken();
  });
  return silentEnd(transform, onBroken);
}

/** Iterate a decoder, turning a decoding error into a quiet end (onBroken records it). */
async function* silentEnd(transform: Readable, onBroken: () => void): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of transform) yield chunk as Buffer;
  } catch {
    onBroken();
  }
}

/** The first two bytes of a stream, and a stream that still yields everything. */
export async function peek(source: Readable): Promise<[Buffer, Readable]> {
  const it = source[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let len = 0;
  while (len < 2) {
    const next = await it.next();
    if (next.done) break;
    const b = Buffer.from(next.value as Uint8Array);
    seen.push(b);
    len += b.length;
  }
  async function* replay(): AsyncIterable<Uint8Array> {
    yield* seen;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value as Uint8Array;
  }
  return [Buffer.concat(seen).subarray(0, 2), Readable.from(replay(), { objectMode: false })];
}

/** RFC 1950 header: compression method 8 and a header checksum divisible by 31. */
function looksLikeZlib(b: Buffer): boolean {
  if (b.length < 2) return false;
  const cmf = b[0]!;
  const flg = b[1]!;
  return (cmf & 0x0f) === 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

export interface BodyText {
  text: string;
  charset: string;
  /** The decoded body was cut at maxDecodedBytes. */
  capped: boolean;
}

/** Stored bodies up to this size are decoded in one synchronous call, not through streams. */
const ONE_SHOT_MAX_BYTES = 1024 * 1024;

/**
 * Undo the Content-Encoding of a stored body. Small bodies with one coding
 * (most pages) are inflated in one call — the stream pipeline costs more
 * than the inflating for a 10 KB page; anything unusual (a corrupt or
 * truncated stream, output past the cap, several codings, a big body) takes
 * the streaming path, which keeps what it could decode.
 */
export async function decodeBody(body: BodyStore, contentEncoding: string | undefined, maxDecodedBytes: number): Promise<DecodedBytes> {
  const coding = (contentEncoding ?? '').trim().toLowerCase();
  if (body.size <= ONE_SHOT_MAX_BYTES && !coding.includes(',')) {
    const stored = await body.head(body.size);
    if (coding === '' || coding === 'identity') {
      const capped = stored.length > maxDecodedBytes;
      return { bytes: capped ? stored.subarray(0, maxDecodedBytes) : stored, capped, complete: true };
    }
    const opts = { maxOutputLength: Math.max(1, maxDecodedBytes) };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') {
        const bytes = gunzipWhole(stored, opts.maxOutputLength);
        if (bytes !== null) return { bytes, capped: false, complete: true };
      }
      if (coding === 'br') return { bytes: zlib.brotliDecompressSync(stored, opts), capped: false, complete: true };
      if (coding === 'deflate') {
        const bytes = looksLikeZlib(stored) ? zlib.inflateSync(stored, opts) : zlib.inflateRawSync(stored, opts);
        return { bytes, capped: false, complete: true };
      }
    } catch {
      // A gzip body whose trailer alone is wrong gives its whole text (marked incomplete); anything else
      // falls through to the streaming path, which keeps the decodable part.
      const bytes = coding === 'gzip' || coding === 'x-gzip' ? inflateIgnoringTrailer(stored, opts.maxOutputLength) : null;
      if (bytes !== null) return { bytes, capped: false, complete: false };
    }
  }
  return decodeContentEncoding(body.stream(), contentEncoding, maxDecodedBytes);
}

/**
 * A whole gzip body inflated by this thread's kept handle (core/kept-zlib.ts)
 * or gunzipSync where there is none; null when it inflates past `maxBytes`.
 * Throws on a corrupt or truncated body.
 */
function gunzipWhole(stored: Uint8Array, maxBytes: number): Buffer | null {
  const z = keptZlib('gunzip');
  if (z === null) return zlib.gunzipSync(stored, { maxOutputLength: maxBytes });
  return z.whole(stored, gunzipBufferBytes(stored), maxBytes);
}

/** Content-decode and charset-decode a stored body for extraction. */
export async function bodyText(
  body: BodyStore,
  headers: ReadonlyArray<readonly [string, string]>,
  maxDecodedBytes: number,
): Promise<BodyText> {
  const decoded = await decodeBody(body, headerValue(headers, 'content-encoding'), maxDecodedBytes);
  const charset = detectCharset(decoded.bytes, headerValue(headers, 'content-type'));
  return { text: decodeText(decoded.bytes, charset), charset, capped: decoded.capped };
}

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
