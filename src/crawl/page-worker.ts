/**
 * The program of the page thread (page-thread.ts): a capture's outlinks and
 * WARC records (page-work.ts), the extraction of one HTML document (a body
 * too large to travel whole, read on the main thread), or the warcinfo
 * record that opens a WARC file.
 */
import { serveBatches } from '../core/batch-server.js';
import type { HtmlExtraction } from '../fetch/link-extractor.js';
import { extractFor, type ExtractOptions } from './extract-for.js';
import { pageReply, warcInfoReply, type PageReply, type PageRequest, type WarcInfoReply } from './page-work.js';
import { warmUpPageWork } from './page-warm-up.js';
import type { WarcInfoInput } from '../writer/warc-records.js';

export type PageThreadRequest = { op: 'page'; page: PageRequest } | ({ op: 'extract'; html: string; url: string } & ExtractOptions) | { op: 'warcinfo'; info: WarcInfoInput };
export type PageThreadReply = PageReply | HtmlExtraction | WarcInfoReply;

serveBatches<PageThreadRequest, PageThreadReply>(
  'arch-page',
  (req) => (req.op === 'page' ? pageReply(req.page) : req.op === 'warcinfo' ? warcInfoReply(req.info) : extractFor(req.html, req.url, req)),
  (reply) => ('members' in reply ? [reply.outlinks, ...reply.members, ...(reply.textJson !== null ? [reply.textJson] : [])] : 'warcinfo' in reply ? [reply.warcinfo] : []),
  // Its modules loaded (parse5 by the first made-up page) and warm before it says it is ready: the
  // main thread works the pages meanwhile (page-thread.ts).
  warmUpPageWork,
);
