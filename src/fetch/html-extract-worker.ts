/**
 * The program of the HTML extraction thread (html-extract-thread.ts): links,
 * title, meta robots and visible text of the pages it is sent. Plain data
 * both ways, so structured cloning carries it.
 */
import { serveBatches } from '../core/batch-server.js';
import { extractHtml } from './link-extractor.js';

export interface HtmlExtractRequest {
  html: string;
  url: string;
  /** Distinct links taken from the page; the rest are counted (linksBeyondCap). */
  maxLinks?: number;
  /** Hyperlinks carry their anchor and surrounding text. */
  linkText?: boolean;
}

serveBatches('arch-extract', (input: HtmlExtractRequest) =>
  extractHtml(input.html, input.url, {
    ...(input.maxLinks !== undefined ? { maxLinks: input.maxLinks } : {}),
    ...(input.linkText === true ? { linkText: true } : {}),
  }),
);
