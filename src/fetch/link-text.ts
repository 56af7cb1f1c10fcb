/**
 * The words a page gives each of its hyperlinks, for topic-focused crawls
 * (src/focus/ scores a link by them): its anchor text — the visible text
 * between <a> and </a>, with the alt text of images inside — and a little
 * of the text around it, before and after. Built as the scanner streams the
 * page, beside the visible text, so it costs no second pass.
 *
 * Bounded whatever the page: an anchor keeps at most MAX_ANCHOR_CHARS, the
 * text around at most AROUND_CHARS on each side; a link waits for the text
 * after it only until it has AROUND_CHARS of it, and every link waiting
 * gets the same characters, so the work is at most links × AROUND_CHARS
 * however they are laid out (a page of 6000 image links with no text
 * between them included).
 */
import type { ExtractedLink } from './link-resolution.js';

/** Characters of anchor text kept per link. */
export const MAX_ANCHOR_CHARS = 100;
/** Characters of surrounding text kept on each side of a link. */
export const AROUND_CHARS = 60;

interface WaitingLink {
  link: ExtractedLink;
  before: string;
  after: string;
}

export class LinkTexts {
  /** The latest visible text, at most 2 × AROUND_CHARS (cut back to AROUND_CHARS when longer). */
  #recent = '';
  #space = false;
  /** The link whose anchor is open, its text so far, and the text before it. */
  #open: ExtractedLink | null = null;
  #anchor = '';
  #before = '';
  /** Links whose anchor closed, oldest first, collecting the text after them. */
  #waiting: WaitingLink[] = [];

  /** Visible characters (a text node's piece). */
  text(chunk: string): void {
    const piece = this.#space && this.#recent.length > 0 ? ` ${chunk}` : chunk;
    this.#space = false;
    this.#recent += piece;
    if (this.#recent.length > 2 * AROUND_CHARS) this.#recent = this.#recent.slice(-AROUND_CHARS);
    if (this.#open !== null && this.#anchor.length < MAX_ANCHOR_CHARS) this.#anchor = (this.#anchor + piece).slice(0, MAX_ANCHOR_CHARS);
    if (this.#waiting.length === 0) return;
    let done = 0;
    for (const w of this.#waiting) {
      w.after += piece;
      if (w.after.length >= AROUND_CHARS) done++;
    }
    // All got the same characters, and the oldest started first: the full ones lead.
    for (let i = 0; i < done; i++) this.#finish(this.#waiting[i]!);
    if (done > 0) this.#waiting = this.#waiting.slice(done);
  }

  /** A word boundary (whitespace, or a tag between text nodes). */
  boundary(): void {
    this.#space = true;
  }

  /** An <a>/<area> whose link was taken: its anchor starts (one still open ends first, as the parser ends a nested <a>). */
  open(link: ExtractedLink): void {
    this.close();
    this.#open = link;
    this.#anchor = '';
    this.#before = this.#recent.slice(-AROUND_CHARS);
  }

  /** Text that stands for the anchor without being visible text: an image's alt inside it, an <area>'s alt. */
  alt(text: string): void {
    if (this.#open === null || this.#anchor.length >= MAX_ANCHOR_CHARS) return;
    this.#anchor = (this.#anchor.length > 0 ? `${this.#anchor} ${text}` : text).slice(0, MAX_ANCHOR_CHARS);
  }

  /** </a>, or whatever ends the open anchor. */
  close(): void {
    const link = this.#open;
    if (link === null) return;
    this.#open = null;
    link.anchor = collapse(this.#anchor);
    this.#waiting.push({ link, before: this.#before, after: '' });
  }

  /** The end of the page: links still waiting take what text came after them. */
  finish(): void {
    this.close();
    for (const w of this.#waiting) this.#finish(w);
    this.#waiting = [];
  }

  #finish(w: WaitingLink): void {
    const around = collapse(`${w.before} ${w.after.slice(0, AROUND_CHARS)}`);
    if (around !== '') w.link.around = around;
  }
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
