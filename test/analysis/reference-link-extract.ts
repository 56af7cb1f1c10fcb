/**
 * The links a browser's DOM holds, as the reference for analyze's scan
 * (html-links.ts): parse5's full tree builder with scripting off (a crawler
 * without JavaScript reads <noscript> as markup), then a walk of the tree —
 * HTML a/area href and iframe/frame src, SVG/MathML <a> href or xlink:href,
 * the first HTML <base href> and <title>. Written independently of the
 * streaming scan, which only follows the tree builder's rules that matter
 * for links.
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import type { PageLinks } from '../../src/analysis/html-links.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const HTML_NS = 'http://www.w3.org/1999/xhtml';

export function referenceExtractLinks(html: string): PageLinks {
  const out: PageLinks = { hrefs: [], baseHref: null, title: '' };
  let titleSeen = false;
  const attr = (e: Element, name: string, prefix?: string): string | undefined =>
    e.attrs.find((a) => a.name === name && (a.prefix ?? undefined) === prefix)?.value;
  const walk = (node: Node): void => {
    if ('tagName' in node) {
      const e = node;
      if (e.namespaceURI === HTML_NS) {
        const link = e.tagName === 'a' || e.tagName === 'area' ? attr(e, 'href') : e.tagName === 'iframe' || e.tagName === 'frame' ? attr(e, 'src') : undefined;
        if (link !== undefined) out.hrefs.push(link);
        if (e.tagName === 'base' && out.baseHref === null) out.baseHref = attr(e, 'href') ?? null;
        if (e.tagName === 'title' && !titleSeen) {
          titleSeen = true;
          out.title = e.childNodes.map((c) => ('value' in c && c.nodeName === '#text' ? c.value : '')).join('').replace(/\s+/g, ' ').trim();
        }
      } else if (e.tagName === 'a') {
        const link = attr(e, 'href') ?? attr(e, 'href', 'xlink');
        if (link !== undefined) out.hrefs.push(link);
      }
      if (e.tagName === 'template' && 'content' in e) walk(e.content as Node);
    }
    if ('childNodes' in node) for (const c of node.childNodes) walk(c);
  };
  walk(parse(html, { scriptingEnabled: false }));
  return out;
}
