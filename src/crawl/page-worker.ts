/**
 * The program of the page thread (page-thread.ts): a capture's outlinks and
 * WARC records (page-work.ts), the reading of one stored HTML body for its
 * links (a body too large for its records to be made here: its stored bytes
 * come, and are decoded and parsed here), or the warcinfo record that opens
 * a WARC file.
 */
import { serveBatches } from '../core/batch-server.js';
import { bufferBody } from '../core/buffer-body.js';
import { extractStored, type ExtractOptions, type StoredExtraction } from './extract-for.js';
import { pageReply, warcInfoReply, type PageReply, type PageRequest, type WarcInfoReply } from './page-work.js';
import { warmUpPageWork } from './page-warm-up.js';
import type { WarcInfoInput } from '../writer/warc-records.js';
import { signalLinked } from '../core/linked-signal.js';

/** A stored HTML body to read for its links: its stored bytes (moved here) and the response headers that say how to decode them. */
export type StoredHtmlRequest = { op: 'readStored'; stored: Uint8Array; headers: ReadonlyArray<readonly [string, string]>; url: string } & ExtractOptions;
export type PageThreadRequest = { op: 'page'; page: PageRequest } | StoredHtmlRequest | { op: 'warcinfo'; info: WarcInfoInput };
export type PageThreadReply = PageReply | StoredExtraction | WarcInfoReply;

// Every module above is loaded and has run: a parent holding V8's flags back for this thread may set them now.
signalLinked();

serveBatches<PageThreadRequest, PageThreadReply>(
  'arch-page',
  (req) => (req.op === 'page' ? pageReply(req.page) : req.op === 'warcinfo' ? warcInfoReply(req.info) : extractStored(bufferBody(req.stored), req.headers, req.url, req)),
  (reply) => ('members' in reply ? [reply.outlinks, ...reply.members, ...(reply.textJson !== null ? [reply.textJson] : [])] : 'warcinfo' in reply ? [reply.warcinfo] : []),
  // Its modules loaded (parse5 by the first made-up page) and warm before it says it is ready: the
  // main thread works the pages meanwhile (page-thread.ts).
  warmUpPageWork,
);
