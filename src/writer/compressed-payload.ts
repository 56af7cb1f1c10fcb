/**
 * Whether a response's payload is already compressed, so deflating its
 * record again would only spend CPU: content-encoded bodies (gzip, br…,
 * most pages of a server that compresses) and media types that are
 * compressed formats. Such records are stored in their gzip member with
 * deflate level 0 — still one valid gzip member per record, a few bytes
 * per 64 KiB larger, and about a quarter of the CPU (measured on the
 * PostgreSQL docs' gzipped pages: 46 ms at level 0 against 167 ms at
 * level 6, output the same size).
 */
import { headerValue } from '../core/exchange.js';

const ENCODINGS = new Set(['gzip', 'x-gzip', 'br', 'deflate', 'compress', 'x-compress', 'zstd']);
const MEDIA = new Set([
  'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif',
  'application/zip', 'application/gzip', 'application/x-gzip', 'application/zstd', 'application/x-7z-compressed', 'application/x-xz', 'application/x-bzip2',
  'font/woff', 'font/woff2', 'application/font-woff',
]);

export function payloadIsCompressed(headers: ReadonlyArray<readonly [string, string]>): boolean {
  const encoding = headerValue(headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') return encoding.split(',').every((c) => ENCODINGS.has(c.trim()));
  const type = (headerValue(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return MEDIA.has(type) || type.startsWith('video/') || type.startsWith('audio/');
}
