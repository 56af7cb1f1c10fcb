/**
 * One precomputed answer of the fixture web: status, headers, the exact body
 * bytes (and their gzip form when the resource is served compressed to
 * clients that accept it), whether it goes out chunked, and the links a
 * correct crawler extracts from it. Everything is computed once at start so
 * that serving is a map lookup and a write — the server must never be the
 * bottleneck of a benchmark.
 */
import { gzipSync } from 'node:zlib';
import type { RecordedLink } from './html.js';

export interface Resource {
  readonly status: number;
  /** Headers other than Content-Length / Content-Encoding / Transfer-Encoding. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The identity body. */
  readonly body: Buffer;
  /** The gzip body, sent with `Content-Encoding: gzip` when the request accepts gzip; null = never compressed. */
  readonly gzipBody: Buffer | null;
  /** Sent without Content-Length (chunked transfer-encoding). */
  readonly chunked: boolean;
  /** Links a correct extractor finds in this resource (absolute, no fragment). */
  readonly links: readonly RecordedLink[];
  /** `<meta name="robots" content="nofollow">`: a polite crawler follows none of `links`. */
  readonly nofollow: boolean;
}

export interface ResourceOptions {
  status?: number;
  contentType: string;
  gzip?: boolean;
  chunked?: boolean;
  links?: readonly RecordedLink[];
  nofollow?: boolean;
  /** Extra headers, e.g. Location. */
  headers?: ReadonlyArray<readonly [string, string]>;
  /** Seconds after 2024-01-01 for Last-Modified, so each resource has its own stable date. */
  modifiedOffsetSec?: number;
}

const EPOCH_MS = Date.UTC(2024, 0, 1);

export function makeResource(body: string | Buffer, opts: ResourceOptions): Resource {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const gzip = opts.gzip ?? false;
  const headers: Array<readonly [string, string]> = [['Content-Type', opts.contentType]];
  headers.push(['Last-Modified', new Date(EPOCH_MS + (opts.modifiedOffsetSec ?? 0) * 1000).toUTCString()]);
  if (gzip) headers.push(['Vary', 'Accept-Encoding']);
  headers.push(...(opts.headers ?? []));
  return {
    status: opts.status ?? 200,
    headers,
    body: bytes,
    // Level 1 is nginx's default and cheap at start-up; the output is
    // deterministic for a given input (mtime 0 in the header).
    gzipBody: gzip ? gzipSync(bytes, { level: 1 }) : null,
    chunked: opts.chunked ?? false,
    links: opts.links ?? [],
    nofollow: opts.nofollow ?? false,
  };
}
