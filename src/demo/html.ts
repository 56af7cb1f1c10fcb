/**
 * Building blocks for the fixture web's HTML: escaping, a page skeleton that
 * carries the site's stylesheet, script, favicon and logo like a real site,
 * and a PageLinks recorder that both writes an href and remembers the
 * absolute URL a correct extractor resolves it to — so the expected link
 * graph can never drift from the markup that is served.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** How a link is followed by a polite crawler. */
export type LinkKind = 'link' | 'embed' | 'redirect';

export interface RecordedLink {
  /** Absolute URL, fragment removed. */
  readonly url: string;
  readonly kind: LinkKind;
}

/** Collects the links of one page as its markup is written. */
export class PageLinks {
  readonly links: RecordedLink[] = [];
  private readonly base: URL;

  /** `baseUrl` is the page URL, or the `<base href>` when the page has one. */
  constructor(baseUrl: string) {
    this.base = new URL(baseUrl);
  }

  /** Returns `href` unchanged (escaped) and records where it resolves. */
  href(href: string, kind: LinkKind = 'link'): string {
    const resolved = new URL(href, this.base);
    if (resolved.protocol === 'http:' || resolved.protocol === 'https:') {
      resolved.hash = '';
      this.links.push({ url: resolved.href, kind });
    }
    return escapeHtml(href);
  }

  /** A srcset attribute value: every candidate is an embed. */
  srcset(candidates: ReadonlyArray<readonly [string, string]>): string {
    return candidates.map(([url, descriptor]) => `${this.href(url, 'embed')} ${descriptor}`).join(', ');
  }
}

export interface PageParts {
  title: string;
  /** Extra tags for the top of <head>, before any URL (already escaped). */
  head?: string;
  /** The content of <main> (already escaped). */
  main: string;
  /** Site chrome (stylesheet, script, logo, nav) — off for the bare special pages. */
  chrome: boolean;
  /**
   * The in-page "#content" link of the chrome (default true). Off under a
   * `<base href>`: there it would resolve to the base directory, a trap
   * crawlers treat differently rather than a duty to test.
   */
  skipLink?: boolean;
  lang?: string;
}

/** A complete HTML document; site-wide links are recorded through `links`. */
export function renderPage(links: PageLinks, parts: PageParts): string {
  const head = ['<meta charset="utf-8">'];
  // A <base href> must come before the first URL it is meant to affect.
  if (parts.head !== undefined) head.push(parts.head);
  head.push('<meta name="viewport" content="width=device-width, initial-scale=1">');
  head.push(`<title>${escapeHtml(parts.title)}</title>`);
  if (parts.chrome) {
    head.push(`<link rel="stylesheet" href="${links.href('/static/site.css', 'embed')}">`);
    head.push(`<link rel="icon" type="image/gif" href="${links.href('/favicon.ico', 'embed')}">`);
    head.push(`<script src="${links.href('/static/app.js', 'embed')}" defer></script>`);
  }
  const body: string[] = [];
  if (parts.chrome) {
    body.push(
      '<header>',
      `  <a href="${links.href('/')}" class="logo"><img src="${links.href('/img/logo.gif', 'embed')}" alt="Home" width="120" height="40"></a>`,
      `  <nav><a href="${links.href('/')}">Home</a> · <a href="${links.href('/about.html')}">About</a>${
        parts.skipLink === false ? '' : ` · <a href="${links.href('#content')}">Skip to content</a>`
      }</nav>`,
      '</header>',
    );
  }
  body.push(`<main id="content">`, parts.main, '</main>');
  if (parts.chrome) {
    body.push(
      '<footer>',
      `  <p>© <span id="year">2024</span> Fixture Archive · <a href="mailto:curator@example.invalid">Write to the curator</a> · <a href="javascript:window.print()">Print</a></p>`,
      '</footer>',
    );
  }
  return [
    '<!DOCTYPE html>',
    `<html lang="${parts.lang ?? 'en'}">`,
    '<head>',
    ...head.map((line) => `  ${line}`),
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
