/**
 * The generator's promises that HTTP tests cannot see: the links it records
 * for each page are exactly the links an HTML parser finds in the markup it
 * serves (so expectedUrls cannot drift from the bodies), the in-degree of
 * the link graph is heavy-tailed, and its images are well-formed GIFs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'parse5';
import { generateWeb } from '../../src/demo/site-generator.js';
import { makeGif } from '../../src/demo/assets.js';
import { Rng } from '../../src/demo/random.js';

interface Node {
  nodeName: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
}

function attr(node: Node, name: string): string | undefined {
  return node.attrs?.find((a) => a.name === name)?.value;
}

/** A small independent extractor: the link-bearing attributes the fixture uses. */
function extractHtml(html: string, pageUrl: string): Set<string> {
  const doc = parse(html) as unknown as Node;
  const raw: string[] = [];
  let base = pageUrl;
  const walk = (node: Node): void => {
    const name = node.nodeName;
    if (name === 'base' && attr(node, 'href') !== undefined) base = new URL(attr(node, 'href') as string, pageUrl).href;
    if (['a', 'link'].includes(name)) raw.push(attr(node, 'href') ?? '');
    if (['img', 'script'].includes(name)) raw.push(attr(node, 'src') ?? '');
    const srcset = attr(node, 'srcset');
    if (srcset !== undefined) for (const c of srcset.split(',')) raw.push(c.trim().split(/\s+/)[0] ?? '');
    const refresh = name === 'meta' && attr(node, 'http-equiv')?.toLowerCase() === 'refresh' ? attr(node, 'content') : undefined;
    if (refresh !== undefined) raw.push(refresh.replace(/^.*?url=/i, ''));
    const style = attr(node, 'style');
    if (style !== undefined) for (const m of style.matchAll(/url\(\s*['"]?([^'")]+)/g)) raw.push(m[1] ?? '');
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(doc);
  return resolveAll(raw, base);
}

function extractCss(css: string, url: string): Set<string> {
  return resolveAll([...css.matchAll(/url\(\s*['"]?([^'")]+)/g)].map((m) => m[1] ?? ''), url);
}

function resolveAll(raw: readonly string[], base: string): Set<string> {
  const out = new Set<string>();
  for (const href of raw) {
    if (href === '') continue;
    const url = new URL(href, base);
    if (url.protocol !== 'http:' || url.hostname.endsWith('.invalid')) continue;
    url.hash = '';
    out.add(url.href);
  }
  return out;
}

const addresses = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];

describe('generateWeb', () => {
  const web = generateWeb({ addresses, port: 8421, pagesPerHost: 120, seed: 11 });

  it('records exactly the links an HTML/CSS parser finds in every body', () => {
    let checked = 0;
    for (const host of web.hosts) {
      for (const [target, resource] of host.resources) {
        const type = resource.headers.find(([k]) => k === 'Content-Type')?.[1] ?? '';
        const url = host.origin + target;
        const charset = /charset=([\w-]+)/i.exec(type)?.[1] ?? 'utf-8';
        const text = new TextDecoder(charset).decode(resource.body);
        let found: Set<string> | undefined;
        if (type.startsWith('text/html')) found = extractHtml(text, url);
        if (type.startsWith('text/css')) found = extractCss(text, url);
        if (found === undefined) continue;
        // A redirect's Location counts as one of its links.
        const location = resource.headers.find(([k]) => k === 'Location')?.[1];
        if (location !== undefined) found.add(new URL(location, url).href);
        assert.deepEqual(new Set(resource.links.map((l) => l.url)), found, url);
        checked++;
      }
    }
    assert.ok(checked > 5 * 120, `checked ${checked}`);
  });

  it('gives article pages a heavy-tailed in-degree with cross-host links', () => {
    const inDegree = new Map<string, number>();
    let crossHost = 0;
    for (const host of web.hosts) {
      for (const [target, resource] of host.resources) {
        if (!target.startsWith('/s/') || target.endsWith('/')) continue;
        for (const link of resource.links) {
          if (!/\/s\/\d+\/.+\.html$/.test(link.url)) continue;
          inDegree.set(link.url, (inDegree.get(link.url) ?? 0) + 1);
          if (!link.url.startsWith(host.origin)) crossHost++;
        }
      }
    }
    const degrees = [...inDegree.values()].sort((a, b) => a - b);
    const median = degrees[Math.floor(degrees.length / 2)] ?? 0;
    const max = degrees.at(-1) ?? 0;
    assert.ok(max >= 8 * Math.max(1, median), `max in-degree ${max}, median ${median}`);
    assert.ok(crossHost > 100, `only ${crossHost} cross-host links`);
  });

  it('makes valid, distinct GIF images of about the asked size', () => {
    const rng = new Rng(5);
    const a = makeGif(rng, 3000);
    const b = makeGif(rng, 3000);
    assert.notDeepEqual(a, b);
    for (const gif of [a, b]) {
      assert.equal(gif.subarray(0, 6).toString('latin1'), 'GIF89a');
      assert.ok(Math.abs(gif.length - 3000) < 100, `size ${gif.length}`);
      // Walk the comment extension's sub-blocks to the image descriptor and trailer.
      let at = 13 + 6;
      assert.deepEqual([gif[at], gif[at + 1]], [0x21, 0xfe]);
      at += 2;
      while (gif[at] !== 0) at += (gif[at] ?? 0) + 1;
      at += 1;
      assert.equal(gif[at], 0x2c, 'image descriptor after the comment');
      assert.equal(gif.at(-1), 0x3b, 'trailer');
    }
  });
});
