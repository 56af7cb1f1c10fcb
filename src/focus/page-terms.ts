/**
 * The words a focused crawl scores, cut where the page is parsed: on the
 * crawl's page thread (src/crawl/page-thread.ts), so that the
 * crawl's main thread never runs ICU's word segmenter, which costs about a
 * microsecond per Chinese character (a page's text, and for each of its
 * hyperlinks the anchor, the text around it and the URL).
 *
 * The page's terms (title twice, then its visible text) and each
 * hyperlink's come back as one string of terms separated by spaces (a term
 * never holds one): one string per field crosses between threads, not an
 * array of thousands, and the raw anchor and surrounding text are dropped.
 */
import type { HtmlExtraction } from '../fetch/link-extractor.js';
import { termsOf, urlTerms } from './terms.js';

/** A document's terms: its title's, counted twice (a title names the topic), then its text's. */
export function documentTerms(title: string | null, text: string): string[] {
  const t = title === null ? [] : termsOf(title);
  return [...t, ...t, ...termsOf(text)];
}

/** Adds the terms a focused crawl scores to an extraction (asked with `linkText`), in place. */
export function withFocusTerms(page: HtmlExtraction): HtmlExtraction {
  page.terms = documentTerms(page.title, page.text).join(' ');
  for (const link of page.links) {
    if (link.hop !== 'L') continue;
    if (link.anchor !== undefined) link.anchorTerms = termsOf(link.anchor).join(' ');
    if (link.around !== undefined) link.aroundTerms = termsOf(link.around).join(' ');
    link.urlTerms = urlTerms(link.url).join(' ');
    delete link.anchor;
    delete link.around;
  }
  return page;
}

/** The terms of a string made by withFocusTerms. */
export function splitTerms(joined: string): string[] {
  return joined === '' ? [] : joined.split(' ');
}
