/**
 * Turns a stored body into text for link extraction only (the archive keeps
 * the bytes as received): undoes Content-Encoding (gzip, x-gzip, deflate in
 * its zlib or raw form, br) as a stream with a cap on decoded bytes, so a
 * gzip bomb costs at most the cap; then finds the charset and decodes with
 * TextDecoder (Node's full ICU covers gbk, gb18030, big5, shift_jis…).
 */
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type { BodyStore } from '../core/exchange.js';
import { headerValue } from '../core/exchange.js';

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

/** How many leading bytes the meta prescan looks at (HTML's encoding sniffing window). */
const PRESCAN_BYTES = 1024;

/**
 * The charset to decode with, as a label TextDecoder accepts: a BOM wins
 * (as in browsers, it cannot be wrong), then Content-Type's charset, then
 * <meta charset> / <meta http-equiv> (or CSS @charset) in the first 1024
 * bytes, then utf-8 if the bytes are valid UTF-8, else windows-1252.
 */
export function detectCharset(bytes: Uint8Array, contentType: string | undefined): string {
  const bom = bomCharset(bytes);
  if (bom !== null) return bom;
  const declared = contentType === undefined ? null : /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType)?.[1];
  const fromHeader = declared ? supportedLabel(declared) : null;
  if (fromHeader !== null) return fromHeader;
  const fromMeta = prescanCharset(bytes);
  if (fromMeta !== null) return fromMeta;
  return isUtf8(bytes) ? 'utf-8' : 'windows-1252';
}

/** Decode bytes to text; an unknown charset falls back to utf-8, never throws. */
export function decodeText(bytes: Uint8Array, charset: string): string {
  const label = supportedLabel(charset) ?? 'utf-8';
  // The BOM, if any, is dropped by TextDecoder for utf-8/utf-16 (ignoreBOM false).
  return new TextDecoder(label).decode(bytes);
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
      if (coding === 'gzip' || coding === 'x-gzip') return { bytes: zlib.gunzipSync(stored, opts), capped: false, complete: true };
      if (coding === 'br') return { bytes: zlib.brotliDecompressSync(stored, opts), capped: false, complete: true };
      if (coding === 'deflate') {
        const bytes = looksLikeZlib(stored) ? zlib.inflateSync(stored, opts) : zlib.inflateRawSync(stored, opts);
        return { bytes, capped: false, complete: true };
      }
    } catch {
      // Fall through to the streaming path, which keeps the decodable part.
    }
  }
  return decodeContentEncoding(body.stream(), contentEncoding, maxDecodedBytes);
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

function bomCharset(b: Uint8Array): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return null;
}

function prescanCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES)).toString('latin1');
  const css = /^@charset\s+"([^"]+)"\s*;/i.exec(head)?.[1];
  const meta = css ?? /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([^"'\s;/>]+)/i.exec(head)?.[1];
  if (!meta) return null;
  const label = supportedLabel(meta);
  // A page cannot declare UTF-16 in a meta tag it could be read with as ASCII (HTML spec).
  return label !== null && label.startsWith('utf-16') ? 'utf-8' : label;
}

/** The canonical TextDecoder name for a label, or null if ICU does not know it. */
function supportedLabel(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    // stream: a multi-byte sequence cut at the end of the sample is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
