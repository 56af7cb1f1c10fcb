/**
 * A large HTML body read in pieces: inflated, charset-decoded and handed to
 * the tokenizer a piece at a time, so that neither its decoded bytes nor its
 * text are ever whole in memory. OpenJDK's API docs have pages of 5–6 MB
 * (20–70 times their neighbours); read whole, each put its decoded bytes
 * and its text, as much again, in the page thread's memory at once, and
 * those pages made the crawl's peak RSS.
 *
 * The pieces give what the whole path gives (bodyText, then one string):
 * the same charset (declared by a BOM, Content-Type or the first 1024
 * bytes; else a pass over every byte sniffs UTF-8 as detectCharset does),
 * the same text (TextDecoder in stream mode carries a character cut between
 * two pieces, and drops a BOM as decodeText does), the same cap. The text
 * can be read again from its start (link-extractor.ts does, when a `<base>`
 * turns up after the first link): each reading inflates the stored bytes
 * anew, in pieces of PIECE_BYTES.
 *
 * Only bodies that decode to more than PIECED_MIN_BYTES, stored as they came
 * (no Content-Encoding) or gzip, in a charset whose markup is ASCII bytes
 * (not UTF-16): everything else, and a body zlib fails on (corrupt,
 * truncated: the whole path keeps what it can decode), is read whole.
 */
import type { BodyStore } from '../core/exchange.js';
import { headerValue } from '../core/exchange.js';
import { keptZlib, ZlibInputError } from '../core/kept-zlib.js';
import { declaredCharset, decodingLabel, PRESCAN_BYTES, sniffedCharset } from './charset.js';
import { gunzipBufferBytes } from './gzip-framing.js';

/** Bodies decoding to more than this are read in pieces. */
export const PIECED_MIN_BYTES = 1024 * 1024;
/** Decoded bytes per piece. */
export const PIECE_BYTES = 32 * 1024;
/**
 * A gzip body stored smaller than this is read whole without a look at its
 * trailer: it would have to deflate more than 64 times to pass PIECED_MIN_BYTES.
 */
const MIN_GZIP_STORED_BYTES = PIECED_MIN_BYTES / 64;

export interface HtmlPieces {
  /** The text, a piece at a time, from its start at each reading; each piece is decoded as it is asked for, and kept by nothing here. */
  readonly texts: Iterable<string>;
  /** The decoded bytes were cut at the cap (known once the text was read to its end). */
  readonly capped: boolean;
}

/** A stored HTML body in pieces, or null when it is to be read whole (see the top of this file). */
export async function storedHtmlPieces(
  body: BodyStore,
  headers: ReadonlyArray<readonly [string, string]>,
  maxDecodedBytes: number,
  pieceBytes: number = PIECE_BYTES,
): Promise<HtmlPieces | null> {
  const coding = (headerValue(headers, 'content-encoding') ?? '').trim().toLowerCase();
  const plain = coding === '' || coding === 'identity';
  if (plain ? body.size <= PIECED_MIN_BYTES : (coding !== 'gzip' && coding !== 'x-gzip') || body.size < MIN_GZIP_STORED_BYTES) return null;
  return htmlPieces(await body.head(body.size), plain ? null : 'gzip', headerValue(headers, 'content-type'), maxDecodedBytes, pieceBytes);
}

/** `stored` (gzip, or as it came when `coding` is null) in pieces, or null: read it whole. */
export function htmlPieces(
  stored: Uint8Array,
  coding: 'gzip' | null,
  contentType: string | undefined,
  maxDecodedBytes: number,
  pieceBytes: number = PIECE_BYTES,
): HtmlPieces | null {
  let bytePieces: () => Iterable<Uint8Array>;
  if (coding === null) {
    if (stored.length <= PIECED_MIN_BYTES) return null;
    bytePieces = () => slices(stored, pieceBytes);
  } else {
    const zlib = keptZlib('gunzip');
    if (zlib === null || gunzipBufferBytes(stored) - 1 <= PIECED_MIN_BYTES) return null;
    bytePieces = () => zlib.pieces(stored, pieceBytes);
  }
  let charset: string | null;
  try {
    charset = declaredCharset(headOf(bytePieces()), contentType) ?? sniffedCharset(capped(bytePieces(), maxDecodedBytes, () => {}));
  } catch (err) {
    if (err instanceof ZlibInputError) return null;
    throw err;
  }
  const label = decodingLabel(charset);
  if (label.startsWith('utf-16')) return null;
  let cut = false;
  return {
    texts: { [Symbol.iterator]: () => texts(capped(bytePieces(), maxDecodedBytes, () => (cut = true)), label) },
    get capped() {
      return cut;
    },
  };
}

/** The first PRESCAN_BYTES bytes (fewer when that is all there is), copied. */
function headOf(pieces: Iterable<Uint8Array>): Buffer {
  const head: Buffer[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    head.push(Buffer.from(piece.subarray(0, PRESCAN_BYTES - bytes)));
    bytes += head[head.length - 1]!.length;
    if (bytes >= PRESCAN_BYTES) break;
  }
  return Buffer.concat(head, bytes);
}

function* texts(pieces: Iterable<Uint8Array>, label: string): Generator<string, void, undefined> {
  const decoder = new TextDecoder(label);
  for (const bytes of pieces) {
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The pieces up to `maxBytes` bytes in all, the one that passes it cut there, and `onCut` told. */
function* capped(pieces: Iterable<Uint8Array>, maxBytes: number, onCut: () => void): Generator<Uint8Array, void, undefined> {
  let total = 0;
  for (const bytes of pieces) {
    if (total + bytes.length > maxBytes) {
      onCut();
      yield bytes.subarray(0, maxBytes - total);
      return;
    }
    total += bytes.length;
    yield bytes;
  }
}

function* slices(bytes: Uint8Array, size: number): Generator<Uint8Array, void, undefined> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
