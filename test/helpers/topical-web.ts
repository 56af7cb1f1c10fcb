/**
 * A labelled topical web for focused crawling (the tests' and `npm run
 * bench -- --only focus`'s): several hosts, four topics with their own
 * vocabularies (topical-vocabulary.ts: tea and football in Chinese,
 * astronomy and cooking in English), each host a mix of topics in its own
 * proportions. Every page is labelled with its topic (a host's home page is
 * a `portal` of all its topics), so a crawl's harvest is judged by the
 * labels, never by the crawler's own scores.
 *
 * Links mostly stay within a topic: each article hangs under an earlier
 * article of its host and topic (or its home), so every page is reachable
 * from the homes; its other links go to its own topic with probability
 * `inTopicShare` (on its host with `sameHostShare`), and cross over to
 * another topic otherwise. Anchors are the target's title, followed by a
 * few everyday words. English articles have words in their URLs, Chinese
 * ones numbers. Every page embeds its host's stylesheet; each host has a
 * few pages under /private/, which its robots.txt disallows and other pages
 * link to. Homes link their host's first articles and the next and previous
 * hosts' homes.
 *
 * Deterministic from `seed`; served by FixtureWeb (its `generate` option),
 * so the request log gives, per host, what was asked, when, and how many at once.
 */
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { escapeHtml, PageLinks } from '../../src/demo/html.js';
import { Rng } from '../../src/demo/random.js';
import { makeResource, type Resource } from '../../src/demo/resource.js';
import type { GeneratedWeb, GenerateWebOptions, HostSite } from '../../src/demo/site-generator.js';
import { COMMON, GLUE, TOPICS, type TopicName } from './topical-vocabulary.js';

export type { TopicName } from './topical-vocabulary.js';
export type PageLabel = TopicName | 'portal';

export interface TopicalShape {
  /** Per host, the weight of each topic among its articles; hosts cycle through the list. */
  hostTopics: ReadonlyArray<Partial<Record<TopicName, number>>>;
  /** Links an article makes besides its parent's link to it and its home link: drawn in [min, max]. */
  linksPerPage: readonly [min: number, max: number];
  /** Share of those links to articles of the same topic. */
  inTopicShare: number;
  /** Of in-topic links, the share to the same host. */
  sameHostShare: number;
  /** Share of an article's words from its topic's vocabulary (the rest everyday words and glue). */
  topicWordShare: number;
  /** Pages per host under /private/ (disallowed by robots.txt). */
  privatePages: number;
  /** Articles a home page links to. */
  homeLinks: number;
}

export const DEFAULT_TOPICAL_SHAPE: Readonly<TopicalShape> = Object.freeze({
  hostTopics: [
    { tea: 0.7, football: 0.3 },
    { football: 0.7, tea: 0.3 },
    { astronomy: 0.6, cooking: 0.2, tea: 0.2 },
    { cooking: 0.7, astronomy: 0.3 },
    { tea: 0.25, football: 0.25, astronomy: 0.25, cooking: 0.25 },
    { cooking: 0.5, tea: 0.5 },
  ],
  linksPerPage: [4, 8] as const,
  inTopicShare: 0.8,
  sameHostShare: 0.6,
  topicWordShare: 0.3,
  privatePages: 2,
  homeLinks: 12,
});

export interface TopicalWeb {
  web: GeneratedWeb;
  /** Every page's label, by absolute URL (robots.txt and stylesheets are not pages). */
  labels: Map<string, PageLabel>;
  /** Pages under /private/, which robots.txt disallows. */
  privateUrls: string[];
}

interface Page {
  host: number;
  path: string;
  topic: TopicName | null;
  title: string;
  out: number[];
  private: boolean;
}

/** Builds the web for FixtureWeb's addresses and port. */
export function generateTopicalWeb(opts: GenerateWebOptions, shape: TopicalShape = DEFAULT_TOPICAL_SHAPE): TopicalWeb {
  const rng = new Rng(opts.seed);
  const origins = opts.addresses.map((a) => `http://${a}:${opts.port}`);
  const pages: Page[] = [];
  const byHostTopic = new Map<string, number[]>();
  const byTopic = new Map<TopicName, number[]>();
  const homes: number[] = [];
  const add = (page: Page): number => {
    pages.push(page);
    return pages.length - 1;
  };
  origins.forEach((_, h) => {
    homes.push(add({ host: h, path: '/', topic: null, title: `Home ${h + 1}`, out: [], private: false }));
    const mix = shape.hostTopics[h % shape.hostTopics.length]!;
    for (let i = 1; i <= opts.pagesPerHost + shape.privatePages; i++) {
      const isPrivate = i > opts.pagesPerHost;
      const topic = isPrivate ? mainTopic(mix) : drawTopic(mix, rng);
      const title = makeTitle(topic, rng);
      const slug = TOPICS[topic].language === 'en' ? `${title.toLowerCase().split(' ').slice(0, 2).join('-')}-${i}` : String(i);
      const index = add({ host: h, path: `${isPrivate ? '/private' : '/p'}/${slug}.html`, topic, title, out: [], private: isPrivate });
      if (isPrivate) continue;
      const key = `${h} ${topic}`;
      const same = byHostTopic.get(key) ?? [];
      // Its parent: an earlier article of its host and topic, else its home.
      pages[same.length > 0 ? rng.pick(same) : homes[h]!]!.out.push(index);
      same.push(index);
      byHostTopic.set(key, same);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), index]);
    }
  });
  const articles = pages.map((_, i) => i).filter((i) => pages[i]!.topic !== null && !pages[i]!.private);
  for (const i of articles) {
    const page = pages[i]!;
    const [min, max] = shape.linksPerPage;
    for (let k = rng.int(min, max); k > 0; k--) {
      const topic = page.topic!;
      let pool: readonly number[];
      if (rng.next() < shape.inTopicShare) {
        const own = byHostTopic.get(`${page.host} ${topic}`) ?? [];
        pool = rng.next() < shape.sameHostShare && own.length > 1 ? own : byTopic.get(topic)!;
      } else {
        pool = articles.filter((a) => pages[a]!.topic !== topic);
      }
      const target = rng.pick(pool);
      if (target !== i && !page.out.includes(target)) page.out.push(target);
    }
  }
  // Private pages are linked from a few articles of their host, which robots.txt keeps them from.
  pages.forEach((p, i) => {
    if (!p.private) return;
    const own = articles.filter((a) => pages[a]!.host === p.host);
    pages[rng.pick(own)]!.out.push(i);
  });
  homes.forEach((home, h) => {
    const own = articles.filter((a) => pages[a]!.host === h).slice(0, shape.homeLinks);
    for (const a of own) if (!pages[home]!.out.includes(a)) pages[home]!.out.push(a);
    if (homes.length > 1) pages[home]!.out.push(homes[(h + 1) % homes.length]!, homes[(h + homes.length - 1) % homes.length]!);
  });

  const labels = new Map<string, PageLabel>();
  const privateUrls: string[] = [];
  const hosts: HostSite[] = origins.map((origin, h) => {
    const resources = new Map<string, Resource>();
    pages.forEach((page, i) => {
      if (page.host !== h) return;
      resources.set(page.path, renderPage(page, i, pages, origins, shape.topicWordShare));
      labels.set(origin + page.path, page.topic ?? 'portal');
      if (page.private) privateUrls.push(origin + page.path);
    });
    resources.set('/style.css', makeResource('body { font-family: serif; max-width: 40em; margin: auto }\n', { contentType: 'text/css' }));
    resources.set('/robots.txt', makeResource('User-agent: *\nDisallow: /private/\n', { contentType: 'text/plain; charset=utf-8' }));
    return {
      index: h,
      hostPort: origin.slice('http://'.length),
      origin,
      disallowedPrefixes: ['/private/'],
      resources,
      aliases: new Map(),
      notFound: makeResource('<!DOCTYPE html>\n<title>Not found</title>\n<p>No such page.</p>\n', { status: 404, contentType: 'text/html; charset=utf-8' }),
    };
  });
  return { web: { hosts, seeds: homes.map((h) => origins[pages[h]!.host]! + '/') }, labels, privateUrls };
}

export interface StartedTopicalWeb extends TopicalWeb {
  server: FixtureWeb;
}

/** Serves the topical web on `hosts` loopback addresses from 127.0.0.`firstAddress`. */
export async function startTopicalWeb(o: { hosts?: number; pagesPerHost: number; firstAddress?: number; seed?: number; latencyMs?: number; shape?: TopicalShape }): Promise<StartedTopicalWeb> {
  const shape = o.shape ?? DEFAULT_TOPICAL_SHAPE;
  let built: TopicalWeb | undefined;
  const server = await FixtureWeb.start({
    hosts: o.hosts ?? shape.hostTopics.length,
    pagesPerHost: o.pagesPerHost,
    ...(o.firstAddress !== undefined ? { firstAddress: o.firstAddress } : {}),
    seed: o.seed ?? 1,
    ...(o.latencyMs !== undefined ? { latencyMs: o.latencyMs } : {}),
    generate: (g) => {
      built = generateTopicalWeb(g, shape);
      return built.web;
    },
  });
  return { ...built!, server };
}

function drawTopic(mix: Partial<Record<TopicName, number>>, rng: Rng): TopicName {
  const entries = Object.entries(mix) as Array<[TopicName, number]>;
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let u = rng.next() * total;
  for (const [topic, w] of entries) {
    u -= w;
    if (u < 0) return topic;
  }
  return entries[entries.length - 1]![0];
}

function mainTopic(mix: Partial<Record<TopicName, number>>): TopicName {
  return (Object.entries(mix) as Array<[TopicName, number]>).sort((a, b) => b[1] - a[1])[0]![0];
}

function makeTitle(topic: TopicName, rng: Rng): string {
  const v = TOPICS[topic];
  const ws = [rng.pick(v.words), rng.pick(v.words), rng.pick(COMMON[v.language])];
  if (rng.next() < 0.5) ws.splice(1, 0, rng.pick(v.words));
  return v.language === 'en' ? ws.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ') : ws.join('');
}

/** One sentence of `topic`'s language: topic words, everyday words and glue. */
function sentence(topic: TopicName, share: number, rng: Rng): string {
  const v = TOPICS[topic];
  const out: string[] = [];
  for (let n = rng.int(6, 12); n > 0; n--) {
    const u = rng.next();
    out.push(rng.pick(u < share ? v.words : u < share + 0.35 ? COMMON[v.language] : GLUE[v.language]));
  }
  if (v.language === 'zh') return `${out.join('')}。`;
  const s = out.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

function renderPage(page: Page, index: number, pages: readonly Page[], origins: readonly string[], share: number): Resource {
  const origin = origins[page.host]!;
  const links = new PageLinks(origin + page.path);
  const local = new Rng(index * 7919 + 17);
  const lang = page.topic === null ? 'en' : TOPICS[page.topic].language;
  const items = page.out.map((to) => {
    const target = pages[to]!;
    const href = target.host === page.host ? target.path : origins[target.host]! + target.path;
    const targetLang = target.topic === null ? 'en' : TOPICS[target.topic].language;
    const blurb = Array.from({ length: 3 }, () => local.pick(COMMON[targetLang])).join(targetLang === 'zh' ? '' : ' ');
    return `<li><a href="${links.href(href)}">${escapeHtml(target.title)}</a> ${escapeHtml(blurb)}</li>`;
  });
  const body: string[] = [];
  if (page.topic !== null) {
    for (let p = local.int(3, 5); p > 0; p--) {
      const sentences = Array.from({ length: local.int(3, 6) }, () => sentence(page.topic!, share, local));
      body.push(`<p>${escapeHtml(sentences.join(lang === 'zh' ? '' : ' '))}</p>`);
    }
    body.splice(1, 0, `<h2>${escapeHtml(makeTitle(page.topic, local))}</h2>`);
  } else {
    body.push(`<p>${escapeHtml('Welcome. Our latest articles, and our neighbours.')}</p>`);
  }
  const html = [
    '<!DOCTYPE html>',
    `<html lang="${lang}"><head><meta charset="utf-8">`,
    `<title>${escapeHtml(page.title)}</title>`,
    `<link rel="stylesheet" href="${links.href('/style.css', 'embed')}"></head><body>`,
    `<nav><a href="${links.href('/')}">Home</a></nav>`,
    `<h1>${escapeHtml(page.title)}</h1>`,
    ...body,
    '<ul>', ...items, '</ul>',
    '</body></html>',
    '',
  ].join('\n');
  return makeResource(html, { contentType: 'text/html; charset=utf-8', gzip: index % 3 === 0, links: links.links });
}
