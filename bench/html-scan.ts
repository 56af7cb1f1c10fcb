/**
 * HTML scanning benchmark: the crawler's one-pass tokenizer extraction
 * (links + title + visible text, `extractHtml`) against what the tree-based
 * code paid per page: a parse5 tree for the links (`parse`, before any walk
 * or URL resolution, so a lower bound for the old extractor) and a second
 * tree for the WACZ page text at finalize (`pageText`). Pages: the demo
 * site's own, and generated news-like pages of about 10, 25 and 50 KB.
 * Figures are CPU time (GC threads included), each variant measured in a
 * process of its own. Prints figures; asserts nothing.
 * Run: node --import tsx bench/html-scan.ts [ms-of-work-per-cell] [rounds]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';
import { generateWeb } from '../src/demo/site-generator.js';
import { makeParagraph, makeTitle } from '../src/demo/prose.js';
import { Rng } from '../src/demo/random.js';
import { extractHtml } from '../src/fetch/link-extractor.js';
import { scanHtml } from '../src/fetch/html-scan.js';
import { pageText } from '../src/wacz/page-text.js';

interface Page {
  url: string;
  html: string;
}

function demoPages(): Page[] {
  const web = generateWeb({ addresses: ['127.0.0.2', '127.0.0.3', '127.0.0.4'], port: 8080, pagesPerHost: 40, seed: 1 });
  const pages: Page[] = [];
  for (const host of web.hosts) {
    for (const [target, res] of host.resources) {
      const type = res.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
      if (type.startsWith('text/html') && res.status === 200) pages.push({ url: host.origin + target, html: res.body.toString('utf8') });
    }
  }
  return pages;
}

/** A news article page as real sites ship them: chrome, inline script and JSON-LD, figures with srcset, related links. */
function newsPage(rng: Rng, targetBytes: number, n: number): Page {
  const link = (path: string, text: string): string => `<a href="${path}" class="nav-link" data-track="nav">${text}</a>`;
  const head = [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    `<title>${makeTitle(rng)} | The Daily Fixture</title>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="index, follow">',
    `<meta property="og:image" content="https://cdn.news.test/og/${n}.jpg"><link rel="canonical" href="https://news.test/a/${n}">`,
    '<link rel="preconnect" href="https://cdn.news.test"><link rel="stylesheet" href="/css/site.css"><link rel="stylesheet" href="/css/article.css">',
    '<link rel="icon" href="/favicon.ico"><link rel="alternate" type="application/rss+xml" href="/rss.xml">',
    '<script src="/js/vendor.js" defer></script><script src="/js/app.js" defer></script>',
    `<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}if(a<b&&c>d){document.write("<img src='/px.gif'>")}</script>`,
    `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${makeTitle(rng)}","image":["https://cdn.news.test/${n}.jpg"]}</script>`,
    '<style>.hero{background:url(/img/hero-bg.jpg) no-repeat}@font-face{font-family:x;src:url(/fonts/x.woff2)}</style>',
    '</head><body class="article">',
    '<header><nav><ul>',
  ];
  for (let i = 0; i < 40; i++) head.push(`<li>${link(`/section/${i}/`, `Section ${i}`)}</li>`);
  head.push('</ul></nav><svg class="icons" style="display:none"><symbol id="i-share"><path d="M0 0h24v24H0z"/></symbol></svg></header>');
  const body: string[] = [`<main><article><h1>${makeTitle(rng)}</h1><p class="byline">By <a href="/authors/${n}">A. Writer</a> · <time>2024-05-01</time></p>`];
  const foot = ['</article><aside><h2>Related</h2><ul>'];
  for (let i = 0; i < 30; i++) foot.push(`<li><a href="/a/${rng.int(1, 100_000)}?ref=related#top">${makeTitle(rng)}</a></li>`);
  foot.push('</ul></aside></main><footer><ul>');
  for (let i = 0; i < 40; i++) foot.push(`<li>${link(`/info/${i}.html`, `Footer ${i}`)}</li>`);
  foot.push('</ul><p>&copy; 2024 The Daily Fixture &mdash; <a href="mailto:desk@news.test">desk</a></p></footer>');
  foot.push('<noscript><img src="/px.gif?noscript=1" alt=""></noscript></body></html>');
  let size = head.join('').length + foot.join('').length;
  let i = 0;
  while (size < targetBytes) {
    let block: string;
    if (i % 6 === 5) {
      const img = `https://cdn.news.test/${n}/${i}`;
      block = `<figure><img src="${img}-800.jpg" srcset="${img}-400.jpg 400w, ${img}-800.jpg 800w, ${img}-1600.jpg 1600w" sizes="(max-width: 600px) 100vw, 800px" alt="" loading="lazy"><figcaption>${makeParagraph(rng, 1)}</figcaption></figure>`;
    } else {
      const words = makeParagraph(rng, rng.int(3, 6)).split(' ');
      const at = rng.int(1, words.length - 1);
      words[at] = `<a href="/a/${rng.int(1, 100_000)}">${words[at]}</a>`;
      block = `<p>${words.join(' ')} <em>${makeParagraph(rng, 1)}</em></p>`;
    }
    body.push(block);
    size += block.length;
    i++;
  }
  return { url: `https://news.test/a/${n}`, html: [...head, ...body, ...foot].join('\n') };
}

/** What each variant does to one page. */
const VARIANTS: Readonly<Record<string, (p: Page) => unknown>> = {
  'tree: parse()': (p) => parse(p.html, { scriptingEnabled: false }),
  'tree: parse() + pageText()': (p) => (parse(p.html, { scriptingEnabled: false }), pageText(p.html)),
  'tokenizer only': (p) => scanHtml(p.html, NOOP_HANDLER),
  'extractHtml (links+title+text)': (p) => extractHtml(p.html, p.url),
};

function noop(): void {}
const NOOP_HANDLER = { onHtmlElement: noop, onForeignElement: noop, onElementText: noop, onVisibleText: noop, onTextBoundary: noop };

function pageSets(): Array<[string, Page[]]> {
  const rng = new Rng(6);
  return [
    ['demo site pages', demoPages()],
    ['news ~10 KB', [0, 1, 2].map((n) => newsPage(rng, 10_000, n))],
    ['news ~25 KB', [3, 4, 5].map((n) => newsPage(rng, 25_000, n))],
    ['news ~50 KB', [6, 7, 8].map((n) => newsPage(rng, 50_000, n))],
  ];
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** CPU milliseconds per page of `fn` over `pages`: passes until about `budgetMs` of work is done. */
function cpuMsPerPage(pages: readonly Page[], fn: (p: Page) => unknown, budgetMs: number): number {
  const started = process.cpuUsage();
  let passes = 0;
  do {
    for (const p of pages) fn(p);
    passes++;
  } while (cpuMs(started) < budgetMs);
  return cpuMs(started) / (passes * pages.length);
}

/** Child: one variant over every page set (all warmed up first, so the JIT has settled), one JSON line of ms per page. */
function runVariant(name: string, budgetMs: number): void {
  const fn = VARIANTS[name];
  if (fn === undefined) throw new Error(`unknown variant ${name}`);
  const sets = pageSets();
  for (const [, pages] of sets) cpuMsPerPage(pages, fn, budgetMs / 4);
  const out = sets.map(([, pages]) => cpuMsPerPage(pages, fn, budgetMs));
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/**
 * Parent: each variant in a process of its own, so that one variant's use of
 * parse5's Tokenizer (a tree, or our scanner) does not make its call sites
 * polymorphic and slow the other down.
 */
function main(): void {
  const budgetMs = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 3);
  const results = new Map<string, number[]>();
  // Rounds interleave the variants and keep each cell's fastest: other load on the machine only ever adds time.
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(VARIANTS)) {
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--variant', name, String(budgetMs)], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`variant ${name} failed: ${child.stderr}`);
      const ms = JSON.parse(child.stdout.trim().split('\n').pop()!) as number[];
      const best = results.get(name);
      results.set(name, best === undefined ? ms : ms.map((m, i) => Math.min(m, best[i]!)));
    }
  }
  const names = [...results.keys()];
  console.log(`HTML scanning, CPU ms per page (node ${process.version}; each variant in processes of its own; best of ${rounds} rounds of ~${budgetMs} ms of work per cell)`);
  console.log(`| pages | n | mean KB | links (first page) | ${names.join(' | ')} | speed-up vs tree | vs tree pair |`);
  console.log(`|---|---|---|---|${names.map(() => '---|').join('')}---|---|`);
  pageSets().forEach(([name, pages], i) => {
    const kb = pages.reduce((s, p) => s + p.html.length, 0) / pages.length / 1024;
    const links = extractHtml(pages[0]!.html, pages[0]!.url).links.length;
    const ms = names.map((n) => results.get(n)![i]!);
    const [tree, pair, , scan] = ms as [number, number, number, number];
    console.log(`| ${name} | ${pages.length} | ${kb.toFixed(1)} | ${links} | ${ms.map((m) => m.toFixed(3)).join(' | ')} | ${(tree / scan).toFixed(2)}× | ${(pair / scan).toFixed(2)}× |`);
  });
}

const variantAt = process.argv.indexOf('--variant');
if (variantAt >= 0) runVariant(process.argv[variantAt + 1]!, Number(process.argv[variantAt + 2] ?? 2000));
else main();
