/**
 * What the page thread does with one capture, and the same work in this
 * thread when the worker cannot take it: read its outlinks (content-decoded
 * and parsed once: links, title, visible text, meta robots; a focused
 * crawl's terms) and build its three WARC records as gzip members, the
 * metadata record listing those outlinks. One trip per capture, bytes both
 * ways: the body goes as one transferred buffer and the outlinks come back
 * as JSON bytes, because structured cloning costs the sending and receiving
 * thread far more for strings and objects (~750 µs for a 100 KB page's
 * string, ~140 µs for 100 link objects) than for a moved buffer.
 */
import { bufferBody } from '../core/buffer-body.js';
import type { HttpExchange } from '../core/exchange.js';
import { extractStored, type ExtractOptions } from './extract-for.js';
import { captureMembers, warcInfoMember, type CaptureMembers } from '../writer/capture-members.js';
import { syncGzip, type MemberCompressor } from '../writer/gzip-member.js';
import { loadOnce } from '../core/load-once.js';
import type { CaptureRecordInput, WarcInfoInput, WarcVersion } from '../writer/warc-records.js';
import { extractOutlinks, type Outlinks } from './outlinks.js';
import { KNOWN_THERE_CAPACITY, KnownLinks } from './known-links.js';
import type { DiscoveredLink } from './link-scheduler.js';
import { journalText } from '../job/capture-journal.js';

/** How a capture's outlinks are read: the response's media type and the crawl's limits. */
export interface PageExtraction extends ExtractOptions {
  mime: string;
  obeyMetaRobots: boolean;
  maxOutlinks: number;
}

/** One capture as it travels to the page thread. */
export interface PageRequest {
  exchange: Omit<HttpExchange, 'body' | 'requestHead'> & { requestHead: Uint8Array };
  body: Uint8Array;
  hopPath: string;
  via: string | null;
  revisitOf?: CaptureRecordInput['revisitOf'];
  version: WarcVersion;
  /** How to read the outlinks; null when the caller read them already (`outlinks`). */
  extraction: PageExtraction | null;
  /** The outlinks the metadata record lists when `extraction` is null. */
  outlinks?: Outlinks;
  /**
   * Link URLs the main thread has put through its seen filter since the
   * last request (LinkScheduler's onKnown): the page thread then leaves
   * them, and those it was told before, out of the outlinks it sends back
   * (the metadata record still lists every one). Absent: every link is sent
   * (a focused crawl scores them all).
   */
  known?: string[];
}

/**
 * Its answer: the outlinks as UTF-8 JSON, the three gzip members (response
 * or revisit, request, metadata), and the page's visible text apart, as the
 * UTF-8 bytes of its JSON string (null when the text stays in the outlinks).
 */
export interface PageReply {
  outlinks: ArrayBuffer;
  textJson: ArrayBuffer | null;
  members: [ArrayBuffer, ArrayBuffer, ArrayBuffer];
  mainId: string;
  revisit: boolean;
}

/** A capture's outlinks and its records, ready for the write queue. */
export interface PageResult {
  found: Outlinks;
  members: CaptureMembers;
  /**
   * The page's visible text as the bytes of a JSON string, capped for the
   * capture journal, when the page thread kept it out of `found` (whose
   * `page.text` is then ''): the main thread only copies it into the
   * journal line, never parses or re-encodes it. Absent when `found` holds it.
   */
  textJson?: Buffer;
}

/**
 * On the page thread: the link URLs the main thread said it had put through
 * its seen filter, whose repeats it skips unread (known-links.ts). A site's
 * navigation is most of the links its pages send back (12,249 of 14,810 on
 * the PostgreSQL docs): they are neither encoded here nor parsed there.
 * Smaller than the main thread's own set: what falls out of it is sent, and
 * skipped there.
 */
const knownThere = new KnownLinks(KNOWN_THERE_CAPACITY);

/** in-memory-records.ts, and with it warcio, loaded by the first page a worker thread works (as capture-members.ts loads it). */
const inMemoryRecords = loadOnce(() => import('../writer/in-memory-records.js'));

const NO_OUTLINKS: Outlinks = Object.freeze({ links: [], annotations: [], linksBeyondCap: 0 }) as Outlinks;


/** The work itself; `compressor` is the thread's synchronous one or the in-process path's. */
export async function pageWork(req: PageRequest, compressor: MemberCompressor = syncGzip): Promise<PageResult> {
  const ex = req.exchange;
  const exchange: HttpExchange = {
    ...ex,
    requestHead: Buffer.from(ex.requestHead.buffer, ex.requestHead.byteOffset, ex.requestHead.byteLength),
    body: bufferBody(req.body),
  };
  const x = req.extraction;
  const found =
    x === null
      ? (req.outlinks ?? NO_OUTLINKS)
      : await extractOutlinks(exchange, x.mime, x.obeyMetaRobots, (body, headers, url) => extractStored(body, headers, url, x), x.maxOutlinks);
  const input = {
    exchange,
    hopPath: req.hopPath,
    via: req.via,
    outlinks: found.links,
    ...(req.revisitOf ? { revisitOf: req.revisitOf } : {}),
  };
  // A synchronous compressor (a worker thread's) makes the records in one pass (in-memory-records.ts); the in-process path streams them.
  const member = compressor.member;
  const members =
    (member !== undefined ? (await inMemoryRecords()).inMemoryCaptureMembers(input, req.body, req.version, member) : null) ??
    (await captureMembers(input, req.version, compressor));
  return { found, members };
}

/**
 * The worker's side: the work, its answer packed as buffers to move. A
 * page's text goes apart, already encoded for the journal, unless a focused
 * crawl reads it on the main thread.
 */
export async function pageReply(req: PageRequest): Promise<PageReply> {
  const { found, members } = await pageWork(req);
  const page = found.page;
  const apart = page !== undefined && page.text !== '' && req.extraction?.focusTerms !== true;
  const links = req.known === undefined ? found.links : unknownLinks(found.links, req.known);
  const sent: Outlinks = apart ? { ...found, links, page: { ...page, text: '' } } : links === found.links ? found : { ...found, links };
  const json = Buffer.from(JSON.stringify(sent), 'utf8');
  return {
    outlinks: ownBuffer(json),
    textJson: apart ? ownBuffer(Buffer.from(JSON.stringify(journalText(page.text)), 'utf8')) : null,
    members: [members.main, members.request, members.metadata].map((member) => {
      if (!Buffer.isBuffer(member)) throw new Error('record too large for the page thread');
      return ownBuffer(member);
    }) as [ArrayBuffer, ArrayBuffer, ArrayBuffer],
    mainId: members.mainId,
    revisit: members.revisit,
  };
}

/** `links` less those the main thread knows (`known` first taken in); a redirect's target always goes (the main thread never skips one). */
function unknownLinks(links: DiscoveredLink[], known: readonly string[]): DiscoveredLink[] {
  for (const url of known) knownThere.add(url);
  const unknown = links.filter((l) => l.hop === 'R' || !knownThere.has(l.url));
  return unknown.length === links.length ? links : unknown;
}

/** A WARC file's warcinfo record as its gzip member (WarcWriterOptions.warcInfo), made on the page thread. */
export interface WarcInfoReply {
  warcinfo: ArrayBuffer;
}

/** A warcinfo member as the worker answers it: with the thread's own compressor, or `compressor` where the worker cannot take it. */
export async function warcInfoReply(info: WarcInfoInput, compressor: MemberCompressor = syncGzip): Promise<WarcInfoReply> {
  return { warcinfo: ownBuffer(await warcInfoMember(info, compressor)) };
}

/** The main thread's side: the answer back into a result. */
export function pageResultOf(reply: PageReply): PageResult {
  const found = JSON.parse(Buffer.from(reply.outlinks).toString('utf8')) as Outlinks;
  const [main, request, metadata] = reply.members.map((m) => Buffer.from(m)) as [Buffer, Buffer, Buffer];
  return {
    found,
    members: { main, request, metadata, mainId: reply.mainId, revisit: reply.revisit },
    ...(reply.textJson !== null ? { textJson: Buffer.from(reply.textJson) } : {}),
  };
}

/** A buffer of its own, exactly the bytes' size: a small Buffer is a view of node's shared pool, and moving it would move the pool. */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
