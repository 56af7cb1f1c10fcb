/**
 * HTML extraction as the crawl asks for it: links (at most `maxLinks`
 * distinct), title, meta robots and visible text, and with `focusTerms` the
 * terms a focused crawl scores for the page and each hyperlink (anchor,
 * surrounding text, URL), cut where the page is parsed so the main thread
 * never runs ICU's segmenter (src/focus/page-terms.ts).
 */
import type { BodyStore } from '../core/exchange.js';
import { bodyText } from '../fetch/content-decoding.js';
import { ZlibInputError } from '../core/kept-zlib.js';
import { storedHtmlPieces } from '../fetch/html-pieces.js';
import type { HtmlExtraction, HtmlTextPieces } from '../fetch/link-extractor.js';
import { loadOnce } from '../core/load-once.js';

/** Decoded bytes beyond this are not looked at for links (gzip bombs, huge pages). */
export const MAX_DECODED_BYTES = 32 * 1024 * 1024;

/** link-extractor.ts, and with it parse5 and entities, loaded by the first page. */
const linkExtractor = loadOnce(() => import('../fetch/link-extractor.js'));

export interface ExtractOptions {
  /** Distinct links taken from the page; the rest are counted (linksBeyondCap). */
  maxLinks?: number;
  /** The page and its hyperlinks come with a focused crawl's terms. */
  focusTerms?: boolean;
  /** False: the visible text is not gathered (a profile's `output.pageText`), unless focusTerms needs it. */
  text?: boolean;
}

/** The extraction; the extractor (parse5) and a focused crawl's term cutting are loaded by the first page. */
export async function extractFor(html: string | HtmlTextPieces, url: string, o: ExtractOptions): Promise<HtmlExtraction> {
  const { extractHtml } = await linkExtractor();
  const page = extractHtml(html, url, {
    ...(o.maxLinks !== undefined ? { maxLinks: o.maxLinks } : {}),
    ...(o.focusTerms === true ? { linkText: true } : o.text === false ? { maxTextChars: 0 } : {}),
  });
  return o.focusTerms === true ? (await import('../focus/page-terms.js')).withFocusTerms(page) : page;
}

/** A stored HTML body read: its extraction, and whether its decoded bytes were cut at MAX_DECODED_BYTES. */
export interface StoredExtraction {
  page: HtmlExtraction;
  capped: boolean;
}

/**
 * A stored HTML body as the archive keeps it (Content-Encoding and all)
 * decoded and extracted in one go: where this runs, the page's decoded
 * bytes and text live, and nowhere else.
 */
export async function extractStored(body: BodyStore, headers: ReadonlyArray<readonly [string, string]>, url: string, o: ExtractOptions): Promise<StoredExtraction> {
  // A page of several MB is read in pieces, never whole in memory as bytes or text.
  const pieces = await storedHtmlPieces(body, headers, MAX_DECODED_BYTES);
  if (pieces !== null) {
    try {
      const page = await extractFor(pieces, url, o);
      return { page, capped: pieces.capped };
    } catch (err) {
      // A corrupt or cut gzip body: read whole below, which keeps what can be decoded.
      if (!(err instanceof ZlibInputError)) throw err;
    }
  }
  const { text, capped } = await bodyText(body, headers, MAX_DECODED_BYTES);
  return { page: await extractFor(text, url, o), capped };
}
