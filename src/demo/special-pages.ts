/**
 * The tricky corners every fixture host has, each the smallest page that
 * exercises one crawler duty: a 301 → 302 → page redirect chain, a meta
 * refresh, a `<base href>` page, a GBK page with a non-ASCII link, a page
 * with meta robots nofollow, a page linking into robots-disallowed /private/
 * plus a broken link and off-web links, a query-string URL, and the 404 page.
 * Targets reachable only through one of these are what make a crawler that
 * skips the duty visibly miss pages.
 */
import { GBK_TEXT, makeParagraph } from './prose.js';
import { escapeHtml, PageLinks, renderPage } from './html.js';
import { makeResource, type Resource } from './resource.js';
import { makeGif } from './assets.js';
import type { Rng } from './random.js';

/** Where special pages put their resources. */
export interface HostTable {
  readonly index: number;
  readonly origin: string;
  add(pathAndQuery: string, resource: Resource): void;
  /** Serve `aliasPath` with the resource of `targetPath` (not part of the expected link graph). */
  alias(aliasPath: string, targetPath: string): void;
}

/** Paths the home page links to so that every special page is reachable. */
export const SPECIAL_ENTRY_PATHS = [
  '/old-home',
  '/refresh.html',
  '/docs/guide/base.html',
  '/gbk/index.html',
  '/nofollow.html',
  '/search?q=archive&lang=en',
] as const;

export const MISSING_PATH = '/missing-page.html';

function simplePage(host: HostTable, path: string, title: string, rng: Rng, chrome = true): Resource {
  const links = new PageLinks(host.origin + path);
  const main = `<h1>${escapeHtml(title)}</h1>\n<p>${makeParagraph(rng, 4)}</p>\n<p><a href="${links.href('/')}">Back to the home page</a></p>`;
  return makeResource(renderPage(links, { title, main, chrome }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
  });
}

function redirect(host: HostTable, path: string, status: 301 | 302, location: string): Resource {
  const links = new PageLinks(host.origin + path);
  const target = links.href(location, 'redirect');
  const body = `<!DOCTYPE html>\n<html><head><title>Moved</title></head><body><p>This page has moved to <a href="${target}">${target}</a>.</p></body></html>\n`;
  return makeResource(body, {
    status,
    contentType: 'text/html; charset=utf-8',
    headers: [['Location', location]],
    links: links.links,
  });
}

export function addRedirectChain(host: HostTable, rng: Rng): void {
  // Relative Location first, absolute second: crawlers must resolve both.
  host.add('/old-home', redirect(host, '/old-home', 301, '/moved/temporary'));
  host.add('/moved/temporary', redirect(host, '/moved/temporary', 302, `${host.origin}/welcome.html`));
  host.add('/welcome.html', simplePage(host, '/welcome.html', 'Welcome to our new home', rng));
}

export function addMetaRefresh(host: HostTable, rng: Rng): void {
  const links = new PageLinks(`${host.origin}/refresh.html`);
  const head = `<meta http-equiv="refresh" content="0; url=${links.href('/refreshed.html', 'redirect')}">`;
  const main = '<p>This page refreshes to its new address.</p>';
  host.add('/refresh.html', makeResource(renderPage(links, { title: 'Redirecting…', head, main, chrome: false }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
  }));
  host.add('/refreshed.html', simplePage(host, '/refreshed.html', 'Arrived by meta refresh', rng));
}

export function addBaseHrefPage(host: HostTable, rng: Rng): void {
  // Relative links here resolve against /manual/, not /docs/guide/: a crawler
  // that ignores <base> asks for /docs/guide/intro.html and gets the 404.
  const links = new PageLinks(`${host.origin}/manual/`);
  const head = '<base href="/manual/">';
  const main = [
    '<h1>User guide</h1>',
    `<p>${makeParagraph(rng, 3)}</p>`,
    `<ul><li><a href="${links.href('intro.html')}">Introduction</a></li>`,
    `<li><a href="${links.href('chapter-1.html#start')}">Chapter 1</a></li></ul>`,
    `<img src="${links.href('figure.gif', 'embed')}" alt="Figure 1">`,
  ].join('\n');
  host.add('/docs/guide/base.html', makeResource(renderPage(links, { title: 'User guide', head, main, chrome: true, skipLink: false }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
    chunked: true,
  }));
  host.add('/manual/intro.html', simplePage(host, '/manual/intro.html', 'Manual: introduction', rng));
  host.add('/manual/chapter-1.html', simplePage(host, '/manual/chapter-1.html', 'Manual: chapter 1', rng));
  host.add('/manual/figure.gif', makeResource(makeGif(rng, 1500), { contentType: 'image/gif' }));
}

function gbkPage(titleBytes: Buffer, bodyParts: Buffer[]): Buffer {
  const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
  return Buffer.concat([
    ascii('<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n  <meta http-equiv="Content-Type" content="text/html; charset=gbk">\n  <title>'),
    titleBytes,
    ascii('</title>\n</head>\n<body>\n'),
    ...bodyParts,
    ascii('</body>\n</html>\n'),
  ]);
}

export function addGbkPages(host: HostTable): void {
  const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
  const name = GBK_TEXT.linkName;
  // The href is written in GBK bytes; a correct crawler decodes the page as
  // GBK and then percent-encodes the path as UTF-8 (as browsers do).
  const targetPath = new URL(`/gbk/${name.text}.html`, host.origin).pathname;
  const links = new PageLinks(`${host.origin}/gbk/index.html`);
  links.href(`/gbk/${name.text}.html`);
  links.href('/');
  links.href('/img/logo.gif', 'embed');
  const index = gbkPage(GBK_TEXT.title.bytes, [
    ascii('<h1>'), GBK_TEXT.title.bytes, ascii('</h1>\n<p>'), GBK_TEXT.intro.bytes, ascii('</p>\n'),
    ascii('<p><img src="/img/logo.gif" alt="logo"> <a href="/gbk/'), name.bytes, ascii('.html">'), name.bytes, ascii('</a></p>\n'),
    ascii('<p><a href="/">'), GBK_TEXT.backHome.bytes, ascii('</a></p>\n'),
  ]);
  host.add('/gbk/index.html', makeResource(index, { contentType: 'text/html; charset=GBK', links: links.links }));

  const targetLinks = new PageLinks(host.origin + targetPath);
  targetLinks.href('/');
  const target = gbkPage(name.bytes, [
    ascii('<h1>'), name.bytes, ascii('</h1>\n<p>'), GBK_TEXT.body.bytes, ascii('</p>\n'),
    ascii('<p><a href="/">'), GBK_TEXT.backHome.bytes, ascii('</a></p>\n'),
  ]);
  host.add(targetPath, makeResource(target, { contentType: 'text/html; charset=GBK', links: targetLinks.links, gzip: true }));
  // Some clients percent-encode the GBK bytes themselves (wget with a remote
  // encoding); answer them too, outside the expected graph.
  const gbkEscaped = [...name.bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  host.alias(`/gbk/${gbkEscaped}.html`, targetPath);
}

export function addNofollowPage(host: HostTable, rng: Rng): void {
  const links = new PageLinks(`${host.origin}/nofollow.html`);
  const head = '<meta name="robots" content="nofollow">';
  const main = [
    '<h1>Drafts (not for crawlers)</h1>',
    `<ul><li><a href="${links.href('/unlisted/draft-1.html')}">Draft one</a></li>`,
    `<li><a href="${links.href('/unlisted/draft-2.html')}">Draft two</a></li></ul>`,
  ].join('\n');
  host.add('/nofollow.html', makeResource(renderPage(links, { title: 'Drafts', head, main, chrome: false }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
    nofollow: true,
  }));
  host.add('/unlisted/draft-1.html', simplePage(host, '/unlisted/draft-1.html', 'Draft one', rng, false));
  host.add('/unlisted/draft-2.html', simplePage(host, '/unlisted/draft-2.html', 'Draft two', rng, false));
}

/** The about page: links into /private/, a broken link, and links that leave the web. */
export function addAboutPage(host: HostTable, rng: Rng): void {
  const links = new PageLinks(`${host.origin}/about.html`);
  const main = [
    '<h1>About this archive</h1>',
    `<p>${makeParagraph(rng, 5)}</p>`,
    `<p>Members can sign in to <a href="${links.href('/private/members.html')}">the members' area</a>.`,
    `<img src="${links.href('/private/staff.gif', 'embed')}" alt="Our staff"></p>`,
    `<p>Our <a href="${links.href(MISSING_PATH)}">annual report</a> is coming soon.</p>`,
    `<p>Partners: <a href="http://archiver-demo.invalid/partners">Demo partners</a>,`,
    `call <a href="tel:+15550100">+1 555 0100</a>.</p>`,
  ].join('\n');
  // The off-web link is not recorded: it is outside every fixture scope.
  host.add('/about.html', makeResource(renderPage(links, { title: 'About', main, chrome: true }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
    chunked: true,
  }));
  host.add('/private/members.html', simplePage(host, '/private/members.html', 'Members only', rng));
  host.add('/private/staff.gif', makeResource(makeGif(rng, 3000), { contentType: 'image/gif' }));
}

/** A search results page at a URL with a query string (its href is written with &amp;). */
export function addSearchPage(host: HostTable, rng: Rng, resultPaths: readonly string[]): void {
  const links = new PageLinks(`${host.origin}/search?q=archive&lang=en`);
  const items = resultPaths.map((p, i) => `<li><a href="${links.href(p)}">Result ${i + 1}</a></li>`);
  const main = `<h1>Search: archive</h1>\n<p>${makeParagraph(rng, 1)}</p>\n<ol>\n${items.join('\n')}\n</ol>`;
  host.add('/search?q=archive&lang=en', makeResource(renderPage(links, { title: 'Search results', main, chrome: true }), {
    contentType: 'text/html; charset=utf-8',
    links: links.links,
  }));
}

/** The answer for every path a host does not have. */
export function notFoundPage(host: HostTable): Resource {
  const links = new PageLinks(`${host.origin}/`);
  const main = `<h1>Not found</h1>\n<p>There is nothing at this address. <a href="${links.href('/')}">Home</a></p>`;
  return makeResource(renderPage(links, { title: 'Not found', main, chrome: false }), {
    status: 404,
    contentType: 'text/html; charset=utf-8',
    links: links.links,
  });
}
