/**
 * A page's bytes to text, as a browser would read them: the charset from
 * a BOM, Content-Type, <meta> (or CSS @charset) in the first 1024 bytes,
 * else utf-8 when the bytes are valid UTF-8 and windows-1252 when not; then
 * TextDecoder (Node's full ICU covers gbk, gb18030, big5, shift_jis…). The
 * crawl's link extraction, the WACZ page list and the analysis all read
 * pages through here.
 */

/** How many leading bytes the meta prescan looks at (HTML's encoding sniffing window). */
export const PRESCAN_BYTES = 1024;

/**
 * The charset to decode with, as a label TextDecoder accepts: a BOM wins
 * (as in browsers, it cannot be wrong), then Content-Type's charset, then
 * <meta charset> / <meta http-equiv> (or CSS @charset) in the first 1024
 * bytes, then utf-8 if the bytes are valid UTF-8, else windows-1252.
 */
export function detectCharset(bytes: Uint8Array, contentType: string | null | undefined): string {
  return declaredCharset(bytes, contentType) ?? sniffedCharset([bytes]);
}

/**
 * The charset of a body nothing declares one for: utf-8 when its bytes, in
 * order (one buffer, or the pieces of a large page: html-pieces.ts), are
 * valid UTF-8 (a sequence cut at the very end allowed), else windows-1252.
 * An error from the pieces themselves (their inflating) is thrown on.
 */
export function sniffedCharset(pieces: Iterable<Uint8Array>): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    // stream: a multi-byte sequence cut at the end of the sample is not an error.
    for (const bytes of pieces) decoder.decode(bytes, { stream: true });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'windows-1252';
    throw err;
  }
  return 'utf-8';
}

/**
 * The charset a BOM, Content-Type or the first 1024 bytes declare, as
 * detectCharset finds it; null when nothing does (detectCharset then sniffs
 * the whole body). `bytes` need only be the body's start.
 */
export function declaredCharset(bytes: Uint8Array, contentType: string | null | undefined): string | null {
  const bom = bomCharset(bytes);
  if (bom !== null) return bom;
  const declared = contentType === undefined || contentType === null ? null : /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType)?.[1];
  const fromHeader = declared ? supportedLabel(declared) : null;
  if (fromHeader !== null) return fromHeader;
  return prescanCharset(bytes);
}

/** The label decodeText decodes `charset` with: TextDecoder's name for it, utf-8 when ICU does not know it. */
export function decodingLabel(charset: string): string {
  return charset === 'utf-8' ? charset : (supportedLabel(charset) ?? 'utf-8');
}

/**
 * Decode bytes to text with replacement characters; an unknown charset
 * falls back to utf-8, never throws (a few bad bytes must not lose a page's
 * links). UTF-8 goes through Buffer's decoder, faster than TextDecoder's and
 * the same text (replacement included), less the BOM TextDecoder drops.
 */
export function decodeText(bytes: Uint8Array, charset: string): string {
  const label = decodingLabel(charset);
  if (label !== 'utf-8') return new TextDecoder(label).decode(bytes);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** For a record without Content-Type: does the body start like an HTML document? */
export function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 256))
    .toString('latin1')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
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
