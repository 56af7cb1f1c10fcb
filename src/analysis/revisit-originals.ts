/**
 * A revisit record holds no payload: its page's links and title are those
 * of the original capture it refers to, read as if served at the revisit's
 * own URL (a revisit of /docs/ whose original is /docs/index.html links to
 * /docs/index.html, and its relative links resolve against /docs/). So
 * once every input is read, the original record of each revisit that needs
 * one (graph-builder.ts: pendingRevisits) is found — among the inputs by
 * where each 2xx response was read (ResponseIndex), else among reference inputs
 * such as a job's `dedup.against` crawls, scanned for just those URLs —
 * read again at its offset, and its body extracted against the revisit's
 * URL. A revisit whose original is nowhere is counted as unresolved.
 *
 * Several captures of one URL are told apart by the payload digest; an
 * original shared by many revisits is read once.
 */
import { BodyDecodeError } from '../core/errors.js';
import type { LinkGraphBuilder, PendingRevisit } from './graph-builder.js';
import { normalizeCaptureUrl } from './link-extract.js';
import { pageLinksHere, type PageLinks } from './page-links.js';
import type { ReaderHooks, ResponseLocations } from './warc-reader.js';
import { describeWarcDamage } from '../warc/warc-damage.js';
import { OpenWarc, parseHttpHead, readWarcRecords, WARC_RECORDS_DEFAULTS, warcSource, type WarcRecord, type WarcSource } from '../warc/warc-records.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const RESPONSE_BLOCKS: ReadonlySet<string> = new Set(['response']);
const NO_BLOCKS: ReadonlySet<string> = new Set();

interface Location {
  source: number;
  offset: number;
}

/**
 * Where each 2xx response that may be a page was read, in reading order:
 * the URL's id in the graph builder, the source and the offset, in typed
 * arrays (16 bytes a response, nothing per link target). Looked up once,
 * at the end, for the URLs revisits refer to (`select`).
 */
export class ResponseIndex implements ResponseLocations {
  #ids = new Int32Array(1024);
  #sources = new Int32Array(1024);
  #offsets = new Float64Array(1024);
  #length = 0;
  #selected = new Map<number, Location[]>();

  constructor(private readonly builder: LinkGraphBuilder) {}

  response(url: string, source: number, offset: number): void {
    this.add(this.builder.idOf(url), source, offset);
  }

  add(id: number, source: number, offset: number): void {
    if (this.#length === this.#ids.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.#ids = grow(this.#ids, (n) => new Int32Array(n));
      this.#sources = grow(this.#sources, (n) => new Int32Array(n));
      this.#offsets = grow(this.#offsets, (n) => new Float64Array(n));
    }
    this.#ids[this.#length] = id;
    this.#sources[this.#length] = source;
    this.#offsets[this.#length] = offset;
    this.#length++;
    this.#selected.get(id)?.push({ source, offset });
  }

  /** Make `locations` answer for these URL ids (and for any added after). */
  select(ids: Iterable<number>): void {
    this.#selected = new Map([...ids].map((id) => [id, []]));
    for (let i = 0; i < this.#length; i++) this.#selected.get(this.#ids[i]!)?.push({ source: this.#sources[i]!, offset: this.#offsets[i]! });
  }

  /** Every place a response of a selected URL was read, in reading order. */
  locations(id: number): Location[] {
    return this.#selected.get(id) ?? [];
  }
}

export interface RevisitCounts {
  /** Revisits given the links and title of their original record. */
  fromOriginal: number;
  /** Revisits whose original is not among the inputs (or is no readable page). */
  unresolved: number;
}

/**
 * Give every pending revisit its original's links and title (through
 * `builder.page`). `inputs` are the files read (their indexes are the
 * sources in `index`); `references` are searched only for originals.
 */
export async function resolveRevisits(
  builder: LinkGraphBuilder,
  index: ResponseIndex,
  inputs: readonly (string | WarcSource)[],
  references: readonly (string | WarcSource)[],
  hooks: ReaderHooks,
): Promise<RevisitCounts> {
  const pending = builder.pendingRevisits();
  const counts: RevisitCounts = { fromOriginal: 0, unresolved: 0 };
  if (pending.length === 0) return counts;
  const sources = [...inputs, ...references].map((s) => warcSource(s));
  index.select(pending.map((p) => builder.idOf(p.refersTo)));
  const missing = new Set(pending.filter((p) => index.locations(builder.idOf(p.refersTo)).length === 0).map((p) => p.refersTo));
  if (missing.size > 0 && references.length > 0) await scanReferences(sources, inputs.length, missing, builder, index, hooks);

  // Revisits sharing an original are read together.
  const byOriginal = new Map<string, PendingRevisit[]>();
  for (const p of pending) {
    const key = `${p.refersTo} ${p.digest ?? ''}`;
    const group = byOriginal.get(key);
    if (group === undefined) byOriginal.set(key, [p]);
    else group.push(p);
  }
  // In file order, one file open at a time: each original costs one read.
  const groups = [...byOriginal.values()].map((group) => ({ group, at: index.locations(builder.idOf(group[0]!.refersTo)) }));
  groups.sort((a, b) => (a.at[0]?.source ?? -1) - (b.at[0]?.source ?? -1) || (a.at[0]?.offset ?? 0) - (b.at[0]?.offset ?? 0));
  const files = new OpenFiles(sources);
  try {
    for (const { group, at } of groups) {
      const { refersTo, digest } = group[0]!;
      const original = await findOriginal(files, at, refersTo, digest);
      for (const revisit of group) {
        const found = original === null ? null : linksAt(original, revisit.url);
        if (found === null) {
          counts.unresolved++;
        } else if (found !== 'not-a-page') {
          builder.page(revisit.url, found.title, found.links);
          counts.fromOriginal++;
        } else if (revisit.isPage === true) {
          // Its head said HTML, its payload is not: a page without links.
          counts.fromOriginal++;
        }
      }
    }
  } finally {
    await files.close();
  }
  return counts;
}

/** Where the responses of the `wanted` URLs are in the reference files (read without their blocks). */
async function scanReferences(
  sources: readonly WarcSource[],
  first: number,
  wanted: ReadonlySet<string>,
  builder: LinkGraphBuilder,
  index: ResponseIndex,
  hooks: ReaderHooks,
): Promise<void> {
  for (let i = first; i < sources.length; i++) {
    const records = readWarcRecords(sources[i]!, {
      ...WARC_RECORDS_DEFAULTS,
      keepBlockOf: NO_BLOCKS,
      onDamage: (d) => hooks.warn(describeWarcDamage(d)),
    });
    try {
      for await (const record of records) {
        if (record.type !== 'response' || record.truncated) continue;
        const url = normalizeCaptureUrl(record.targetUri ?? '')?.href;
        if (url !== undefined && wanted.has(url)) index.add(builder.idOf(url), i, record.offset);
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || !code.startsWith('E')) throw err;
      hooks.warn(`${sources[i]!.name}: cannot read (${code}); file skipped`);
    }
  }
}

/** The files originals are read from, the one in use kept open. */
class OpenFiles {
  #current: { source: number; warc: OpenWarc } | null = null;

  constructor(private readonly sources: readonly WarcSource[]) {}

  async get(source: number): Promise<OpenWarc> {
    if (this.#current?.source === source) return this.#current.warc;
    await this.close();
    const warc = await OpenWarc.open(this.sources[source]!);
    this.#current = { source, warc };
    return warc;
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = null;
    await current?.warc.close();
  }
}

/** The response record of `url` at one of `locations` whose payload digest is `digest` (when both are known). */
async function findOriginal(files: OpenFiles, locations: readonly Location[], url: string, digest: string | null): Promise<WarcRecord | null> {
  for (const at of locations) {
    let warc: OpenWarc;
    try {
      warc = await files.get(at.source);
    } catch {
      continue;
    }
    const records = warc.records({ ...WARC_RECORDS_DEFAULTS, keepBlockOf: RESPONSE_BLOCKS, startOffset: at.offset, onDamage: () => {} });
    for await (const record of records) {
      // Records of one gzip member share its offset (a file gzipped whole): read on through them only.
      if (record.offset > at.offset) break;
      if (record.type !== 'response' || record.truncated || normalizeCaptureUrl(record.targetUri ?? '')?.href !== url) continue;
      const own = record.headers.get('warc-payload-digest') ?? null;
      if (digest !== null && own !== null && own !== digest) continue;
      return record;
    }
  }
  return null;
}

/** The original's links and title as a page at `url`; 'not-a-page' when it is no 2xx HTML; null when unreadable. */
function linksAt(original: WarcRecord, url: string): PageLinks | 'not-a-page' | null {
  const http = parseHttpHead(original.block);
  if (http === null || !(http.status >= 200 && http.status < 300)) return 'not-a-page';
  const contentType = http.headers.get('content-type') ?? null;
  const semi = contentType?.indexOf(';') ?? -1;
  const mime = contentType === null ? null : (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (mime !== null && !HTML_TYPES.has(mime)) return 'not-a-page';
  try {
    const found = pageLinksHere({
      body: original.block.subarray(http.bodyStart),
      url,
      contentType,
      contentEncoding: http.headers.get('content-encoding') ?? null,
      chunked: (http.headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked'),
      sniff: mime === null,
    });
    return found ?? 'not-a-page';
  } catch (err) {
    if (err instanceof BodyDecodeError) return null;
    throw err;
  }
}
