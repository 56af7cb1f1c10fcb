/**
 * Pulls the graph's raw material out of one HTML page: `a`/`area` href,
 * `iframe`/`frame` src, the first `<base href>` and the `<title>` text.
 *
 * A scan written for this one job along the HTML standard's tokenizer
 * states (WHATWG HTML §13.2.5): text is skipped with indexOf to the next
 * '<', and only start tags, end tags, comments, doctypes, CDATA and the
 * text elements are followed, because the analysis reads every page of a
 * WARC set and a general tokenizer, which walks every character of the text
 * through its state machine, would spend most of that time on tokens no
 * link is in. What the tree builder adds that matters for links is done
 * here: the text elements (script, style, title…) switch to their text
 * states so markup inside a script yields no link, and inside <svg>/<math>
 * (foreign content) they do not, CDATA sections are text and
 * <a xlink:href> counts. `noscript` is markup, as a
 * crawler without JavaScript sees it. Unfinished tags at the end of the
 * input are dropped, as the tokenizer drops them.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';

export interface PageLinks {
  /** Raw attribute values in document order, not yet resolved. */
  hrefs: string[];
  /** The first `<base href>` value, or null. */
  baseHref: string | null;
  /** Text of the first HTML `<title>`, whitespace collapsed, '' when none. */
  title: string;
}

const MAX_TITLE_CHARS = 300;

const enum TextKind {
  /** Character references decoded (title, textarea). */
  RcData,
  RawText,
  Script,
  /** The rest of the document is text. */
  PlainText,
}

/** Elements whose content the HTML tree builder reads as text, and how. */
const TEXT_ELEMENTS: ReadonlyMap<string, TextKind> = new Map([
  ['title', TextKind.RcData],
  ['textarea', TextKind.RcData],
  ['style', TextKind.RawText],
  ['xmp', TextKind.RawText],
  ['iframe', TextKind.RawText],
  ['noembed', TextKind.RawText],
  ['noframes', TextKind.RawText],
  ['script', TextKind.Script],
  ['plaintext', TextKind.PlainText],
]);

/** Which attribute of which HTML element is a link. */
const LINK_ATTRIBUTE: ReadonlyMap<string, string> = new Map([
  ['a', 'href'],
  ['area', 'href'],
  ['iframe', 'src'],
  ['frame', 'src'],
]);

const NO_ATTRIBUTES: readonly string[] = [];
const HREF: readonly string[] = ['href'];
const SRC: readonly string[] = ['src'];
const FOREIGN_A: readonly string[] = ['href', 'xlink:href'];

/** Extract links, base and title from a whole HTML document. */
export function extractLinks(html: string): PageLinks {
  const scan = new LinkScan(html);
  scan.run();
  return { hrefs: scan.hrefs, baseHref: scan.baseHref, title: scan.title.replace(/\s+/g, ' ').trim() };
}

/** \t \n \f \r and space: what ends a tag name or separates attributes. */
function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 12 || c === 13;
}

function isAsciiAlpha(c: number): boolean {
  return (c | 32) >= 97 && (c | 32) <= 122;
}

class LinkScan {
  readonly hrefs: string[] = [];
  baseHref: string | null = null;
  title = '';
  #titleSeen = false;
  /** Depth inside <svg>/<math>: there, text elements are ordinary and CDATA is allowed. */
  #foreignDepth = 0;
  /** Of the last tag scanned. */
  #selfClosing = false;
  /** Values of the wanted attributes of the last tag scanned, by name; first occurrence wins. */
  readonly #values = new Map<string, string>();

  constructor(private readonly html: string) {}

  run(): void {
    const html = this.html;
    let p = 0;
    while (p < html.length) {
      const lt = html.indexOf('<', p);
      if (lt < 0) return;
      p = this.#tagOpen(lt + 1);
    }
  }

  /** After a '<' in text; returns where text resumes. */
  #tagOpen(q: number): number {
    const html = this.html;
    const c = html.charCodeAt(q);
    if (isAsciiAlpha(c)) return this.#startTag(q);
    if (c === 33 /* ! */) return this.#markupDeclaration(q + 1);
    if (c === 47 /* / */) return this.#endTagOpen(q + 1);
    if (c === 63 /* ? */) return this.#toGt(q);
    return q; // a lone '<' is text
  }

  #markupDeclaration(q: number): number {
    const html = this.html;
    if (html.startsWith('--', q)) return this.#comment(q + 2);
    if (html.length >= q + 7 && html.slice(q, q + 7).toLowerCase() === 'doctype') return this.#toGt(q + 7);
    if (this.#foreignDepth > 0 && html.startsWith('[CDATA[', q)) {
      const end = html.indexOf(']]>', q + 7);
      return end < 0 ? html.length : end + 3;
    }
    return this.#toGt(q); // bogus comment
  }

  /** Just past the next '>' (the end of a bogus comment or a doctype), or the end of input. */
  #toGt(q: number): number {
    const gt = this.html.indexOf('>', q);
    return gt < 0 ? this.html.length : gt + 1;
  }

  /** After "<!--": a comment ends at "-->", "--!>", or right away as "<!-->" or "<!--->". */
  #comment(q: number): number {
    const html = this.html;
    if (html.charCodeAt(q) === 62) return q + 1;
    if (html.startsWith('->', q)) return q + 2;
    for (let dashes = html.indexOf('--', q); dashes >= 0; ) {
      let r = dashes + 2;
      while (html.charCodeAt(r) === 45) r++;
      if (html.charCodeAt(r) === 62) return r + 1;
      if (html.charCodeAt(r) === 33 && html.charCodeAt(r + 1) === 62) return r + 2;
      // Any "--" inside this run of dashes ends the same way: search on after it (no rescanning the run).
      dashes = html.indexOf('--', r);
    }
    return html.length;
  }

  /** After "</". */
  #endTagOpen(q: number): number {
    const html = this.html;
    const c = html.charCodeAt(q);
    if (q >= html.length) return q;
    if (c === 62) return q + 1; // "</>": nothing
    if (!isAsciiAlpha(c)) return this.#toGt(q); // bogus comment
    const nameEnd = this.#nameEnd(q);
    const end = this.#attributes(nameEnd, NO_ATTRIBUTES);
    if (end < 0) return html.length;
    if (this.#foreignDepth > 0) {
      const name = this.#name(q, nameEnd);
      if (name === 'svg' || name === 'math') this.#foreignDepth--;
    }
    return end;
  }

  #startTag(q: number): number {
    const html = this.html;
    const nameEnd = this.#nameEnd(q);
    const name = this.#name(q, nameEnd);
    if (this.#foreignDepth > 0) {
      const end = this.#attributes(nameEnd, name === 'a' ? FOREIGN_A : NO_ATTRIBUTES);
      if (end < 0) return html.length;
      if (name === 'a') {
        const v = this.#values.get('href') ?? this.#values.get('xlink:href');
        if (v !== undefined) this.hrefs.push(v);
      }
      if ((name === 'svg' || name === 'math') && !this.#selfClosing) this.#foreignDepth++;
      return end;
    }
    const linkAttribute = LINK_ATTRIBUTE.get(name);
    const wanted = linkAttribute === 'href' || name === 'base' ? HREF : linkAttribute === 'src' ? SRC : NO_ATTRIBUTES;
    const end = this.#attributes(nameEnd, wanted);
    if (end < 0) return html.length;
    if (linkAttribute !== undefined) {
      const v = this.#values.get(linkAttribute);
      if (v !== undefined) this.hrefs.push(v);
    } else if (name === 'base') {
      if (this.baseHref === null) this.baseHref = this.#values.get('href') ?? null;
    } else if (name === 'svg' || name === 'math') {
      if (!this.#selfClosing) this.#foreignDepth = 1;
      return end;
    }
    const text = TEXT_ELEMENTS.get(name);
    return text === undefined ? end : this.#textElement(name, text, end);
  }

  /** Tag names end at whitespace, '/' or '>'. */
  #nameEnd(q: number): number {
    const html = this.html;
    let r = q + 1;
    for (; r < html.length; r++) {
      const c = html.charCodeAt(r);
      if (c === 62 || c === 47 || isSpace(c)) break;
    }
    return r;
  }

  /** ASCII-lower-cased, as the tokenizer folds names. */
  #name(from: number, to: number): string {
    const raw = this.html.slice(from, to);
    return /[A-Z]/.test(raw) ? raw.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : raw;
  }

  /**
   * The attributes of a tag from `p` to its '>': returns the index past it,
   * or -1 when the input ends first (the tag is then dropped). Sets
   * #selfClosing and, for the names in `wanted`, #values (character
   * references decoded).
   */
  #attributes(p: number, wanted: readonly string[]): number {
    const html = this.html;
    const n = html.length;
    this.#selfClosing = false;
    this.#values.clear();
    for (;;) {
      while (p < n && isSpace(html.charCodeAt(p))) p++;
      if (p >= n) return -1;
      let c = html.charCodeAt(p);
      if (c === 62) return p + 1;
      if (c === 47) {
        p++;
        if (html.charCodeAt(p) === 62) {
          this.#selfClosing = true;
          return p + 1;
        }
        continue;
      }
      // Attribute name: its first character may be anything here ('=' included).
      const nameStart = p++;
      for (; p < n; p++) {
        c = html.charCodeAt(p);
        if (c === 61 || c === 62 || c === 47 || isSpace(c)) break;
      }
      const nameEnd = p;
      while (p < n && isSpace(html.charCodeAt(p))) p++;
      if (p >= n) return -1;
      if (html.charCodeAt(p) !== 61) {
        this.#keep(wanted, nameStart, nameEnd, p, p);
        continue;
      }
      p++;
      while (p < n && isSpace(html.charCodeAt(p))) p++;
      if (p >= n) return -1;
      c = html.charCodeAt(p);
      if (c === 34 || c === 39) {
        const close = html.indexOf(c === 34 ? '"' : "'", p + 1);
        if (close < 0) return -1;
        this.#keep(wanted, nameStart, nameEnd, p + 1, close);
        p = close + 1;
      } else if (c === 62) {
        this.#keep(wanted, nameStart, nameEnd, p, p);
        return p + 1;
      } else {
        const start = p;
        while (p < n && html.charCodeAt(p) !== 62 && !isSpace(html.charCodeAt(p))) p++;
        if (p >= n) return -1;
        this.#keep(wanted, nameStart, nameEnd, start, p);
      }
    }
  }

  #keep(wanted: readonly string[], nameStart: number, nameEnd: number, valueStart: number, valueEnd: number): void {
    const length = nameEnd - nameStart;
    if (!wanted.some((w) => w.length === length)) return;
    const name = this.#name(nameStart, nameEnd);
    if (!wanted.includes(name) || this.#values.has(name)) return;
    let value = this.html.slice(valueStart, valueEnd);
    if (value.includes('&')) value = decodeHTMLAttribute(value);
    if (value.includes('\0')) value = value.replace(/\0/g, '\uFFFD');
    // The tokenizer's input has CR and CRLF turned into LF.
    if (value.includes('\r')) value = value.replace(/\r\n?/g, '\n');
    this.#values.set(name, value);
  }

  /** The content of a text element from `p`, then its end tag; returns where markup resumes. */
  #textElement(name: string, kind: TextKind, p: number): number {
    const html = this.html;
    if (kind === TextKind.PlainText) return html.length;
    const close = kind === TextKind.Script ? this.#scriptEnd(p) : this.#endTagAt(name, p);
    if (name === 'title' && !this.#titleSeen) {
      this.#titleSeen = true;
      const raw = html.slice(p, close < 0 ? html.length : close);
      const text = decodeHTML(raw.length > 4 * MAX_TITLE_CHARS ? raw.slice(0, 4 * MAX_TITLE_CHARS) : raw).slice(0, MAX_TITLE_CHARS);
      this.title = text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text;
    }
    if (close < 0) return html.length;
    const end = this.#attributes(close + 2 + name.length, NO_ATTRIBUTES);
    return end < 0 ? html.length : end;
  }

  /** Whether an end tag of `name` (ASCII case-insensitive) starts at `q`, followed by whitespace, '/' or '>'. */
  #isEndTag(name: string, q: number): boolean {
    const html = this.html;
    const after = q + 2 + name.length;
    if (after >= html.length || html.charCodeAt(q + 1) !== 47) return false;
    const c = html.charCodeAt(after);
    if (!(c === 62 || c === 47 || isSpace(c))) return false;
    return html.slice(q + 2, after).toLowerCase() === name;
  }

  /** Index of the '<' of the end tag closing RCDATA/RAWTEXT `name`, or -1. */
  #endTagAt(name: string, p: number): number {
    for (let q = this.html.indexOf('</', p); q >= 0; q = this.html.indexOf('</', q + 2)) {
      if (this.#isEndTag(name, q)) return q;
    }
    return -1;
  }

  /**
   * Index of the '<' of the </script> that ends script data, or -1. Inside
   * "<!--" a script is "escaped", and there a "<script" opens a "double
   * escaped" part in which </script> does not end it (HTML §13.2.5.15–31).
   */
  #scriptEnd(p: number): number {
    const html = this.html;
    const n = html.length;
    for (;;) {
      // Script data: only '<' matters.
      const lt = html.indexOf('<', p);
      if (lt < 0) return -1;
      if (this.#isEndTag('script', lt)) return lt;
      if (!html.startsWith('<!--', lt)) {
        p = lt + 1;
        continue;
      }
      // Escaped, starting in its dash-dash state.
      let q = lt + 4;
      let dashes = 2;
      let doubled = false;
      for (;;) {
        if (q >= n) return -1;
        const c = html.charCodeAt(q);
        if (c === 45) {
          dashes++;
          q++;
          continue;
        }
        if (c === 62 && dashes >= 2) {
          p = q + 1; // "-->": back to script data
          break;
        }
        dashes = 0;
        if (c !== 60) {
          q++;
          continue;
        }
        if (!doubled && this.#isEndTag('script', q)) return q;
        const slash = html.charCodeAt(q + 1) === 47;
        const word = this.#letters(slash ? q + 2 : q + 1);
        const d = html.charCodeAt(word.end);
        if (word.text === 'script' && (d === 62 || d === 47 || isSpace(d))) {
          // "<script" doubles the escape; "</script" in a doubled part undoes it.
          if (!doubled && !slash) doubled = true;
          else if (doubled && slash) doubled = false;
          q = word.end;
          continue;
        }
        q++;
      }
    }
  }

  /** The ASCII letters from `q` on, lower-cased, and where they end. */
  #letters(q: number): { text: string; end: number } {
    const html = this.html;
    let r = q;
    while (r < html.length && isAsciiAlpha(html.charCodeAt(r))) r++;
    return { text: html.slice(q, r).toLowerCase(), end: r };
  }
}
