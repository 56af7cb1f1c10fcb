/**
 * Title and visible text of an HTML page for `pages/pages.jsonl`, so the
 * viewer's page list shows titles and its full-text search finds words.
 * parse5 reads the page as a browser would; script, style, template and
 * other non-rendered elements are skipped; whitespace runs collapse to one
 * space. Text is capped so one huge page cannot bloat the package.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Default cap on extracted text, in characters. */
export const DEFAULT_MAX_TEXT_CHARS = 100_000;

const NOT_RENDERED = new Set(['script', 'style', 'template', 'noscript', 'svg', 'math', 'iframe', 'object', 'canvas']);

export interface PageText {
  title: string | null;
  text: string;
}

export function pageText(html: string, maxTextChars = DEFAULT_MAX_TEXT_CHARS): PageText {
  const doc = parse(html);
  let title: string | null = null;
  const parts: string[] = [];
  let chars = 0;
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
    if (!('childNodes' in node)) continue;
    if (NOT_RENDERED.has(node.nodeName)) continue;
    // <head> holds no visible text, but <title> lives in it.
    const children = node.nodeName === 'head' ? node.childNodes.filter((c) => c.nodeName === 'title') : node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { title, text: collapse(parts.join(' ')).slice(0, maxTextChars) };
}

function textOf(node: ParentNode): string {
  return node.childNodes.map((c) => (c.nodeName === '#text' ? (c as DefaultTreeAdapterTypes.TextNode).value : '')).join('');
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
