/**
 * The program of the HTML extraction thread (html-extract-thread.ts): links,
 * title, meta robots and visible text of the pages it is sent. Plain data
 * both ways, so structured cloning carries it.
 */
import { serveBatches } from '../core/batch-server.js';
import { extractFor } from './html-extract-thread.js';

export interface HtmlExtractRequest {
  html: string;
  url: string;
  /** Distinct links taken from the page; the rest are counted (linksBeyondCap). */
  maxLinks?: number;
  /** The page and its hyperlinks come with a focused crawl's terms (src/focus/page-terms.ts). */
  focusTerms?: boolean;
}

serveBatches('arch-extract', (input: HtmlExtractRequest) => extractFor(input.html, input.url, input));
