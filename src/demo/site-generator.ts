/**
 * Generates the whole fixture web for a seed: per host a home page, section
 * indexes, articles with text, images (src and srcset), a stylesheet pair, a
 * script, robots.txt and the special pages. Articles link to articles of
 * their own host and of other hosts, targets drawn from Zipf distributions so
 * that in-degree is heavy-tailed like a real link graph. The result is a
 * table of precomputed resources per host; the server only looks them up.
 */
import { appJs, baseCss, makeGif, mainCss, robotsTxt } from './assets.js';
import { escapeHtml, PageLinks, renderPage } from './html.js';
import { makeParagraph, makeTitle } from './prose.js';
import { Rng, ZipfSampler } from './random.js';
import { makeResource, type Resource } from './resource.js';
import {
  addAboutPage, addBaseHrefPage, addGbkPages, addMetaRefresh, addNofollowPage, addRedirectChain,
  addSearchPage, notFoundPage, SPECIAL_ENTRY_PATHS, type HostTable,
} from './special-pages.js';

export interface GenerateWebOptions {
  /** One loopback address per host, e.g. ["127.0.0.2", "127.0.0.3"]. */
  addresses: readonly string[];
  port: number;
  /** Ordinary article pages per host (home, sections and special pages come on top). */
  pagesPerHost: number;
  seed: number;
  /** Crawl-delay written into the first host's robots.txt; none when undefined. */
  crawlDelaySec?: number;
}

export interface HostSite {
  readonly index: number;
  /** "127.0.0.2:8421" */
  readonly hostPort: string;
  /** "http://127.0.0.2:8421" */
  readonly origin: string;
  /** Path prefixes robots.txt disallows for every agent (empty when robots.txt is a 404). */
  readonly disallowedPrefixes: readonly string[];
  /** Keyed by the request target as sent on the wire (path + query). */
  readonly resources: ReadonlyMap<string, Resource>;
  /** Extra request targets answered like another path, outside the expected link graph. */
  readonly aliases: ReadonlyMap<string, string>;
  readonly notFound: Resource;
}

export interface GeneratedWeb {
  readonly hosts: readonly HostSite[];
  readonly seeds: readonly string[];
}

/** Articles per section index page. */
const SECTION_SIZE = 25;
/** Zipf exponent for link targets: ~1 gives a few hubs and a long tail. */
const LINK_EXPONENT = 1.05;

interface Article {
  readonly host: number;
  readonly index: number;
  readonly section: number;
  readonly path: string;
  readonly title: string;
}

function slugify(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

class HostBuilder implements HostTable {
  readonly resources = new Map<string, Resource>();
  readonly aliases = new Map<string, string>();
  constructor(readonly index: number, readonly origin: string) {}
  add(pathAndQuery: string, resource: Resource): void {
    if (this.resources.has(pathAndQuery)) throw new Error(`fixture web: duplicate path ${pathAndQuery}`);
    this.resources.set(pathAndQuery, resource);
  }
  alias(aliasPath: string, targetPath: string): void {
    this.aliases.set(aliasPath, targetPath);
  }
}

export function generateWeb(opts: GenerateWebOptions): GeneratedWeb {
  const root = new Rng(opts.seed);
  const origins = opts.addresses.map((a) => `http://${a}:${opts.port}`);
  const hostCount = origins.length;
  const perHost = Math.max(1, opts.pagesPerHost);

  // Plan every article first: cross-host links need the other hosts' URLs.
  const planRng = root.fork(1);
  const articles: Article[][] = origins.map((_, h) =>
    Array.from({ length: perHost }, (_unused, i) => {
      const title = makeTitle(planRng);
      const section = Math.floor(i / SECTION_SIZE) + 1;
      return { host: h, index: i, section, title, path: `/s/${section}/${slugify(title)}-${i + 1}.html` };
    }),
  );
  const all = articles.flat();
  const globalSampler = new ZipfSampler(all.length, LINK_EXPONENT, root.fork(2));

  const hosts: HostSite[] = origins.map((origin, h) => {
    const rng = root.fork(100 + h);
    const builder = new HostBuilder(h, origin);
    const own = articles[h] ?? [];
    const hostSampler = new ZipfSampler(own.length, LINK_EXPONENT, rng.fork(1));
    const photoCount = Math.max(3, Math.ceil(own.length / 4));
    const photoSampler = new ZipfSampler(photoCount, 0.8, rng.fork(2));

    const pickCrossHost = (): Article | undefined => {
      if (hostCount < 2) return undefined;
      for (let tries = 0; tries < 8; tries++) {
        const a = all[globalSampler.sample(rng)];
        if (a !== undefined && a.host !== h) return a;
      }
      return undefined;
    };

    for (const article of own) {
      builder.add(article.path, renderArticle(origin, origins, article, own, hostSampler, photoSampler, pickCrossHost, rng));
    }
    const sections = Math.ceil(own.length / SECTION_SIZE);
    for (let s = 1; s <= sections; s++) {
      builder.add(`/s/${s}/`, renderSection(origin, s, own.filter((a) => a.section === s), rng));
    }
    builder.add('/', renderHome(origin, origins, h, sections, own, hostSampler, rng));
    addAssets(builder, photoCount, rng);
    // The last host (of several) has no robots.txt at all: its /private/ is fair game.
    const robotsMissing = hostCount > 1 && h === hostCount - 1;
    if (!robotsMissing) {
      builder.add('/robots.txt', makeResource(robotsTxt(h === 0 ? opts.crawlDelaySec : undefined), {
        contentType: 'text/plain; charset=utf-8',
      }));
    }
    addRedirectChain(builder, rng);
    addMetaRefresh(builder, rng);
    addBaseHrefPage(builder, rng);
    addGbkPages(builder);
    addNofollowPage(builder, rng);
    addAboutPage(builder, rng);
    addSearchPage(builder, rng, [0, 1, 2].map(() => own[hostSampler.sample(rng)]?.path ?? '/'));
    return {
      index: h,
      hostPort: origin.slice('http://'.length),
      origin,
      disallowedPrefixes: robotsMissing ? [] : ['/private/'],
      resources: builder.resources,
      aliases: builder.aliases,
      notFound: notFoundPage(builder),
    };
  });
  return { hosts, seeds: origins.map((o) => `${o}/`) };
}

function renderArticle(
  origin: string, origins: readonly string[], article: Article, own: readonly Article[],
  hostSampler: ZipfSampler, photoSampler: ZipfSampler, pickCrossHost: () => Article | undefined, rng: Rng,
): Resource {
  const links = new PageLinks(origin + article.path);
  // Same-host links in the three forms real sites mix: relative, root-relative, absolute.
  const sameHostHref = (target: Article): string => {
    const form = rng.int(0, 2);
    if (form === 0) return target.section === article.section ? target.path.slice(target.path.lastIndexOf('/') + 1) : `..${target.path.slice(2)}`;
    if (form === 1) return target.path;
    return origin + target.path;
  };
  const paragraphs: string[] = [];
  const paragraphCount = rng.int(3, 6);
  for (let p = 0; p < paragraphCount; p++) paragraphs.push(`<p>${makeParagraph(rng, rng.int(3, 7))}</p>`);

  const related: string[] = [];
  const linked = new Set<Article>([article]);
  const sameHostCount = Math.min(own.length - 1, rng.int(3, 6));
  for (let i = 0; i < sameHostCount; i++) {
    const target = own[hostSampler.sample(rng)];
    if (target === undefined || linked.has(target)) continue;
    linked.add(target);
    const fragment = rng.int(0, 5) === 0 ? '#comments' : '';
    related.push(`<li><a href="${links.href(sameHostHref(target) + fragment)}">${escapeHtml(target.title)}</a></li>`);
  }
  const crossCount = rng.int(0, 3);
  for (let i = 0; i < crossCount; i++) {
    const target = pickCrossHost();
    if (target === undefined || linked.has(target)) continue;
    linked.add(target);
    const href = `${origins[target.host] ?? origin}${target.path}`;
    related.push(`<li><a href="${links.href(href)}">${escapeHtml(target.title)}</a> (elsewhere)</li>`);
  }

  const photo = photoSampler.sample(rng) + 1;
  const photoPath = rng.int(0, 1) === 0 ? `/img/photos/photo-${photo}` : `../../img/photos/photo-${photo}`;
  const srcset = rng.int(0, 1) === 0
    ? links.srcset([[`${photoPath}.gif`, '1x'], [`${photoPath}-2x.gif`, '2x']])
    : links.srcset([[`${photoPath}.gif`, '480w'], [`${photoPath}-2x.gif`, '960w']]);
  const figure = [
    '<figure>',
    `  <img src="${links.href(`${photoPath}.gif`, 'embed')}" srcset="${srcset}" sizes="(max-width: 600px) 480px, 960px" alt="Photograph ${photo}">`,
    `  <figcaption>Photograph ${photo}</figcaption>`,
    '</figure>',
  ].join('\n');

  paragraphs.splice(1, 0, figure);
  const main = [
    `<article>`,
    `<h1>${escapeHtml(article.title)}</h1>`,
    `<p class="crumbs"><a href="${links.href('./')}">Section ${article.section}</a></p>`,
    ...paragraphs,
    '</article>',
    '<aside><h2>Related</h2><ul>',
    ...related,
    '</ul></aside>',
  ].join('\n');
  return makeResource(renderPage(links, { title: article.title, main, chrome: true }), {
    contentType: 'text/html; charset=utf-8',
    gzip: article.index % 3 === 0,
    chunked: article.index % 4 === 1,
    links: links.links,
    modifiedOffsetSec: article.index * 3600,
  });
}

function renderSection(origin: string, section: number, items: readonly Article[], rng: Rng): Resource {
  const links = new PageLinks(`${origin}/s/${section}/`);
  const list = items.map((a) => `<li><a href="${links.href(a.path.slice(a.path.lastIndexOf('/') + 1))}">${escapeHtml(a.title)}</a></li>`);
  const main = `<h1>Section ${section}</h1>\n<p>${makeParagraph(rng, 2)}</p>\n<ul>\n${list.join('\n')}\n</ul>`;
  return makeResource(renderPage(links, { title: `Section ${section}`, main, chrome: true }), {
    contentType: 'text/html; charset=utf-8',
    gzip: section % 2 === 1,
    chunked: true,
    links: links.links,
  });
}

function renderHome(
  origin: string, origins: readonly string[], h: number, sections: number, own: readonly Article[],
  hostSampler: ZipfSampler, rng: Rng,
): Resource {
  const links = new PageLinks(`${origin}/`);
  const sectionLinks: string[] = [];
  for (let s = 1; s <= sections; s++) sectionLinks.push(`<li><a href="${links.href(`/s/${s}/`)}">Section ${s}</a></li>`);
  const featured: string[] = [];
  const picked = new Set<Article>();
  for (let i = 0; i < Math.min(5, own.length); i++) {
    const a = own[hostSampler.sample(rng)];
    if (a !== undefined && !picked.has(a) && picked.add(a)) featured.push(`<li><a href="${links.href(a.path.slice(1))}">${escapeHtml(a.title)}</a></li>`);
  }
  const elsewhere: string[] = [];
  origins.forEach((o, i) => {
    if (i !== h) elsewhere.push(`<li><a href="${links.href(`${o}/`)}">Fixture Archive ${i + 1}</a></li>`);
  });
  const specials = SPECIAL_ENTRY_PATHS.map((p) => `<li><a href="${links.href(p)}">${escapeHtml(p)}</a></li>`);
  const main = [
    `<div class="banner" style="background-image: url('${links.href('/img/banner.gif', 'embed')}')">`,
    `<h1>Fixture Archive ${h + 1}</h1></div>`,
    `<p>${makeParagraph(rng, 3)}</p>`,
    '<h2>Sections</h2>', '<ul>', ...sectionLinks, '</ul>',
    '<h2>Featured</h2>', '<ul>', ...featured, '</ul>',
    '<h2>Elsewhere</h2>', '<ul>', ...elsewhere, '</ul>',
    '<h2>Odds and ends</h2>', '<ul>', ...specials, '</ul>',
  ].join('\n');
  return makeResource(renderPage(links, { title: `Fixture Archive ${h + 1}`, main, chrome: true }), {
    contentType: 'text/html; charset=utf-8',
    gzip: true,
    links: links.links,
  });
}

function addAssets(builder: HostBuilder, photoCount: number, rng: Rng): void {
  const h = builder.index;
  const cssLinks = new PageLinks(`${builder.origin}/static/site.css`);
  const css = mainCss(h, cssLinks);
  builder.add('/static/site.css', makeResource(css, { contentType: 'text/css', gzip: true, links: cssLinks.links }));
  const baseLinks = new PageLinks(`${builder.origin}/static/base.css`);
  const base = baseCss(h, baseLinks);
  builder.add('/static/base.css', makeResource(base, { contentType: 'text/css', chunked: true, links: baseLinks.links }));
  builder.add('/static/app.js', makeResource(appJs(h), { contentType: 'application/javascript', gzip: true }));
  const gif = (bytes: number): Resource => makeResource(makeGif(rng, bytes), { contentType: 'image/gif' });
  builder.add('/favicon.ico', gif(400));
  builder.add('/img/logo.gif', gif(2500));
  builder.add('/img/logo-small.gif', gif(900));
  builder.add('/img/background.gif', gif(1200));
  builder.add('/img/footer-texture.gif', gif(700));
  builder.add('/img/banner.gif', gif(6000));
  for (let k = 1; k <= photoCount; k++) {
    const size = rng.int(2000, 12000);
    builder.add(`/img/photos/photo-${k}.gif`, gif(size));
    builder.add(`/img/photos/photo-${k}-2x.gif`, gif(size * 2));
  }
}
