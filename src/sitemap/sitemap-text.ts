/**
 * Plain-text sitemaps (sitemaps.org: "one URL per line", UTF-8): each line
 * that is an absolute http(s) URL is an entry, anything else is skipped
 * and counted. Fed in pieces; a line longer than MAX_LINE_CHARS is skipped
 * without being held, so memory stays bounded.
 */
import type { SitemapEntry } from './sitemap-xml.js';

/** Longest line read (URLs are under 2,048 characters by the protocol). */
export const MAX_LINE_CHARS = 8 * 1024;

export class SitemapTextScanner {
  /** Lines that were not URLs (blank lines aside). */
  skipped = 0;
  readonly #onEntry: (e: SitemapEntry) => boolean;
  #carry = '';
  /** The current line is past MAX_LINE_CHARS: drop it up to its end. */
  #overlong = false;
  #stopped = false;

  /** `onEntry` sees each URL; returning false stops the reading. */
  constructor(onEntry: (e: SitemapEntry) => boolean) {
    this.#onEntry = onEntry;
  }

  get done(): boolean {
    return this.#stopped;
  }

  write(text: string): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0 && !this.#stopped; nl = text.indexOf('\n', start)) {
      this.#line(text.slice(start, nl));
      start = nl + 1;
    }
    if (this.#stopped) return;
    const rest = text.slice(start);
    if (this.#overlong || this.#carry.length + rest.length > MAX_LINE_CHARS) {
      this.#overlong = true;
      this.#carry = '';
    } else this.#carry += rest;
  }

  end(): void {
    if (!this.#stopped) this.#line('');
    this.#stopped = true;
  }

  #line(tail: string): void {
    const overlong = this.#overlong || this.#carry.length + tail.length > MAX_LINE_CHARS;
    const line = overlong ? '' : (this.#carry + tail).trim();
    this.#carry = '';
    this.#overlong = false;
    if (overlong) {
      this.skipped++;
      return;
    }
    if (line === '') return;
    if (!isHttpUrl(line)) {
      this.skipped++;
      return;
    }
    if (!this.#onEntry({ loc: line })) this.#stopped = true;
  }
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
