/**
 * Title and visible text of an HTML page for `pages/pages.jsonl`, so the
 * viewer's page list shows titles and its full-text search finds words.
 * parse5 reads the page as a browser would; script, style, template and
 * other non-rendered elements are skipped; whitespace runs collapse to one
 * space. Text is capped so one huge page cannot bloat the package. A
 * `<meta name="robots">` saying noindex (or none) is reported: such a page
 * stays archived but is left out of the page list, as the crawl's own
 * journal leaves it out.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { applyDirectiveList, type RobotsDirectives } from '../fetch/robots-directives.js';

type Node = DefaultTreeAdapterTypes.Node;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

import { DEFAULT_MAX_TEXT_CHARS } from './page-list.js';

export { DEFAULT_MAX_TEXT_CHARS };

const NOT_RENDERED = new Set(['script', 'style', 'template', 'noscript', 'svg', 'math', 'iframe', 'object', 'canvas']);

export interface PageText {
  title: string | null;
  text: string;
  /** `<meta name="robots">` directives. */
  noindex: boolean;
}

export function pageText(html: string, maxTextChars = DEFAULT_MAX_TEXT_CHARS): PageText {
  const doc = parse(html);
  let title: string | null = null;
  const parts: string[] = [];
  let chars = 0;
  const robots: RobotsDirectives = { noindex: false, nofollow: false };
  // Iterative walk: deeply nested markup must not exhaust the call stack.
  const stack: Node[] = [doc];
  while (stack.length > 0 && chars < maxTextChars) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') {
      const value = (node as DefaultTreeAdapterTypes.TextNode).value;
      if (/\S/.test(value)) {
        parts.push(value);
        chars += value.length;
      }
      continue;
    }
    if (node.nodeName === 'title' && title === null) {
      title = collapse(textOf(node as ParentNode)) || null;
      continue;
    }
    if (node.nodeName === 'meta') {
      const el = node as DefaultTreeAdapterTypes.Element;
      const name = el.attrs.find((a) => a.name === 'name')?.value.trim().toLowerCase();
      const content = el.attrs.find((a) => a.name === 'content')?.value;
      if (name === 'robots' && content !== undefined) applyDirectiveList(content, robots);
      continue;
    }
    if (!('childNodes' in node)) continue;
    if (NOT_RENDERED.has(node.nodeName)) continue;
    // <head> holds no visible text, but <title> and the robots <meta> live in it.
    const children = node.nodeName === 'head' ? node.childNodes.filter((c) => c.nodeName === 'title' || c.nodeName === 'meta') : node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { title, text: collapse(parts.join(' ')).slice(0, maxTextChars), noindex: robots.noindex };
}

function textOf(node: ParentNode): string {
  return node.childNodes.map((c) => (c.nodeName === '#text' ? (c as DefaultTreeAdapterTypes.TextNode).value : '')).join('');
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
