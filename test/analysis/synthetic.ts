/**
 * Generated inputs for the analysis tests and bench: a seeded PRNG, a
 * web-like power-law graph in typed arrays, and WARC records written with
 * warcio (the same library other tools' WARCs are read back with).
 */
import { WARCRecord, WARCSerializer } from 'warcio';
import * as zlib from 'node:zlib';
import { mulberry32 } from '../helpers/prng.js';

/** Mulberry32: small, fast, seeded; tests must be repeatable. */
export const prng = mulberry32;

export interface EdgeArrays {
  nodeCount: number;
  src: Int32Array;
  dst: Int32Array;
  length: number;
}

/**
 * A web-like graph of about `edgeCount` edges over `nodeCount` nodes, shaped
 * like the graphs in pagerank.md: pages grouped in hosts (contiguous ids, as
 * a crawl's first-seen order gives), ~70% of links to the same host (mostly
 * to its first pages: home, section pages), ~30% to other hosts drawn from a
 * Zipf-like law (heavy-tailed in-degree), ~10% of pages dangling. May contain
 * duplicates and self-loops, like real link lists.
 */
export function powerLawGraph(nodeCount: number, edgeCount: number, seed: number): EdgeArrays {
  const rand = prng(seed);
  const src = new Int32Array(edgeCount);
  const dst = new Int32Array(edgeCount);
  // Hidden random permutation so globally popular pages are spread over hosts.
  const perm = new Int32Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) perm[i] = i;
  for (let i = nodeCount - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  let e = 0;
  const meanOut = edgeCount / (nodeCount * 0.9);
  let hostStart = 0;
  let hostEnd = 0;
  for (let u = 0; u < nodeCount && e < edgeCount; u++) {
    if (u >= hostEnd) {
      hostStart = u;
      hostEnd = Math.min(nodeCount, u + 1 + Math.floor(-Math.log(1 - rand()) * 200));
    }
    if (rand() < 0.1) continue; // dangling
    const out = Math.max(1, Math.round(-Math.log(1 - rand()) * meanOut));
    for (let k = 0; k < out && e < edgeCount; k++) {
      let t: number;
      if (rand() < 0.7) t = hostStart + Math.floor((hostEnd - hostStart) * rand() ** 2);
      else t = perm[Math.floor(nodeCount * rand() ** 3)]!; // x^3 concentrates mass: heavy tail
      src[e] = u;
      dst[e] = t;
      e++;
    }
  }
  return { nodeCount, src, dst, length: e };
}

export interface PageSpec {
  url: string;
  html?: string;
  status?: number;
  headers?: Record<string, string>;
  /** Encode the body: Content-Encoding is set to match. */
  encoding?: 'gzip' | 'deflate' | 'br';
  type?: 'response' | 'revisit' | 'resource';
  refersTo?: string;
}

export function encodeBody(body: Uint8Array, encoding: PageSpec['encoding']): Uint8Array {
  switch (encoding) {
    case 'gzip':
      return zlib.gzipSync(body);
    case 'deflate':
      return zlib.deflateSync(body);
    case 'br':
      return zlib.brotliCompressSync(body);
    default:
      return body;
  }
}

export function record(spec: PageSpec, body: Uint8Array | null = null): WARCRecord {
  const status = spec.status ?? 200;
  const raw = body ?? new TextEncoder().encode(spec.html ?? '');
  const payload = encodeBody(raw, spec.encoding);
  const headers: Record<string, string> = {
    'Content-Type': 'text/html; charset=utf-8',
    ...(spec.encoding ? { 'Content-Encoding': spec.encoding } : {}),
    ...spec.headers,
  };
  const type = spec.type ?? 'response';
  if (type === 'revisit') {
    return WARCRecord.create({
      url: spec.url,
      type: 'revisit',
      date: '2024-01-01T00:00:00Z',
      statusline: `HTTP/1.1 ${status} OK`,
      httpHeaders: headers,
      refersToUrl: spec.refersTo ?? spec.url,
      refersToDate: '2023-01-01T00:00:00Z',
    });
  }
  const chunks = (async function* () {
    yield payload;
  })();
  return WARCRecord.create(
    {
      url: spec.url,
      type,
      date: '2024-01-01T00:00:00Z',
      statusline: `HTTP/1.1 ${status} ${status >= 300 && status < 400 ? 'Found' : 'OK'}`,
      httpHeaders: type === 'resource' ? undefined : headers,
      warcVersion: 'WARC/1.1',
    },
    chunks,
  );
}

/** Serialize records into one WARC file's bytes (per-record gzip members when `gzip`). */
export async function warcBytes(specs: (PageSpec | WARCRecord)[], gzip: boolean): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (const s of specs) {
    const rec = s instanceof WARCRecord ? s : record(s);
    parts.push(await WARCSerializer.serialize(rec, { gzip }));
  }
  return Buffer.concat(parts);
}

/** A page whose body links to each of `links` with <a href>. */
export function pageHtml(title: string, links: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>${links
    .map((l) => `<p><a href="${l}">link</a></p>`)
    .join('\n')}</body></html>`;
}
