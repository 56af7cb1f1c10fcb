/**
 * The graph's raw material from one HTML page: `a`/`area` href,
 * `iframe`/`frame` src, `<a href|xlink:href>` inside SVG/MathML, the first
 * `<base href>` and the first `<title>` text. It reads the page with the
 * crawler's own streaming scan (fetch/html-scan.ts, parse5's tokenizer and
 * the tree builder's text and foreign-content rules), so analyze and the
 * crawl see the same links in the same markup: one HTML reader for both.
 */
import { scanHtml, type HtmlAttribute, type HtmlScanHandler } from '../fetch/html-scan.js';

export interface PageLinks {
  /** Raw attribute values in document order, not yet resolved. */
  hrefs: string[];
  /** The first `<base href>` value, or null. */
  baseHref: string | null;
  /** Text of the first HTML `<title>`, whitespace collapsed, '' when none. */
  title: string;
}

const MAX_TITLE_CHARS = 300;

/** Which attribute of which HTML element is a link of the graph. */
const LINK_ATTRIBUTE: ReadonlyMap<string, string> = new Map([
  ['a', 'href'],
  ['area', 'href'],
  ['iframe', 'src'],
  ['frame', 'src'],
]);

/** Extract links, base and title from a whole HTML document. */
export function extractLinks(html: string): PageLinks {
  const collector = new LinkCollector();
  scanHtml(html, collector);
  return { hrefs: collector.hrefs, baseHref: collector.baseHref, title: collector.title };
}

/** The value of the first attribute named `name` (the tokenizer already dropped repeats). */
function valueOf(attrs: readonly HtmlAttribute[], name: string): string | undefined {
  for (const a of attrs) if (a.name === name) return a.value;
  return undefined;
}

class LinkCollector implements HtmlScanHandler {
  readonly hrefs: string[] = [];
  baseHref: string | null = null;
  title = '';
  #titleSeen = false;

  onHtmlElement(tag: string, attrs: readonly HtmlAttribute[]): void {
    const attribute = LINK_ATTRIBUTE.get(tag);
    if (attribute !== undefined) {
      const v = valueOf(attrs, attribute);
      if (v !== undefined) this.hrefs.push(v);
    } else if (tag === 'base' && this.baseHref === null) {
      this.baseHref = valueOf(attrs, 'href') ?? null;
    }
  }

  onForeignElement(tag: string, attrs: readonly HtmlAttribute[]): void {
    if (tag !== 'a') return;
    const v = valueOf(attrs, 'href') ?? valueOf(attrs, 'xlink:href');
    if (v !== undefined) this.hrefs.push(v);
  }

  onElementText(tag: 'title' | 'style', text: string): void {
    if (tag !== 'title' || this.#titleSeen) return;
    this.#titleSeen = true;
    this.title = text.slice(0, 4 * MAX_TITLE_CHARS).replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  }

  onVisibleText(): void {}

  onTextBoundary(): void {}
}
