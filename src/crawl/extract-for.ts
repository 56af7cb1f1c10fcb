/**
 * HTML extraction as the crawl asks for it: links (at most `maxLinks`
 * distinct), title, meta robots and visible text, and with `focusTerms` the
 * terms a focused crawl scores for the page and each hyperlink (anchor,
 * surrounding text, URL), cut where the page is parsed so the main thread
 * never runs ICU's segmenter (src/focus/page-terms.ts).
 */
import { extractHtml, type HtmlExtraction } from '../fetch/link-extractor.js';
import { withFocusTerms } from '../focus/page-terms.js';

export interface ExtractOptions {
  /** Distinct links taken from the page; the rest are counted (linksBeyondCap). */
  maxLinks?: number;
  /** The page and its hyperlinks come with a focused crawl's terms. */
  focusTerms?: boolean;
}

export function extractFor(html: string, url: string, o: ExtractOptions): HtmlExtraction {
  const page = extractHtml(html, url, { ...(o.maxLinks !== undefined ? { maxLinks: o.maxLinks } : {}), ...(o.focusTerms === true ? { linkText: true } : {}) });
  return o.focusTerms === true ? withFocusTerms(page) : page;
}
