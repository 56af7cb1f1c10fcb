/**
 * The graph contract of issue 3 on captures fed straight to the builder:
 * nodes, redirect chains, revisits, duplicate edges and self-loops; plus the
 * CSR, degree summaries and the URL interner underneath.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCsr } from '../../src/analysis/csr.js';
import { logBinLabel, summarizeDegrees } from '../../src/analysis/degrees.js';
import { degreesSvg } from '../../src/analysis/degrees-svg.js';
import { LinkGraphBuilder, type LinkGraph } from '../../src/analysis/graph-builder.js';
import { UrlInterner } from '../../src/analysis/url-interner.js';
import { mulberry32 } from '../helpers/prng.js';

function edgesByUrl(g: LinkGraph): string[] {
  const out: string[] = [];
  for (let u = 0; u < g.nodeCount; u++) {
    for (let j = g.offsets[u]!; j < g.offsets[u + 1]!; j++) out.push(`${g.urls[u]} -> ${g.urls[g.targets[j]!]}`);
  }
  return out.sort();
}

const A = 'http://a.test/';
const B = 'http://a.test/b';
const C = 'http://a.test/c';

describe('LinkGraphBuilder', () => {
  it('keeps only edges to captured pages, collapses duplicates and drops self-loops', () => {
    const b = new LinkGraphBuilder();
    b.page(A, 'Home', [B, B, A, 'http://elsewhere.test/', C]);
    b.page(B, 'B', [A]);
    b.page(C, '', []);
    const g = b.build({ keepSelfLoops: false, maxRedirectHops: 20 });
    assert.deepEqual(g.urls, [A, B, C]);
    assert.deepEqual(g.titles, ['Home', 'B', '']);
    assert.deepEqual(edgesByUrl(g), [`${A} -> ${B}`, `${A} -> ${C}`, `${B} -> ${A}`]);
    assert.equal(g.uncapturedLinks, 1);
    assert.equal(g.uncapturedUrls, 1);
    const kept = b.build({ keepSelfLoops: true, maxRedirectHops: 20 });
    assert.ok(edgesByUrl(kept).includes(`${A} -> ${A}`));
  });

  it('follows a captured redirect chain to its final page, links seen before the capture', () => {
    const b = new LinkGraphBuilder();
    b.page(A, '', ['http://a.test/old', 'http://a.test/loop1', 'http://a.test/gone']);
    b.redirect('http://a.test/old', 'http://a.test/older');
    b.redirect('http://a.test/older', C);
    b.redirect('http://a.test/loop1', 'http://a.test/loop2');
    b.redirect('http://a.test/loop2', 'http://a.test/loop1');
    b.redirect('http://a.test/gone', 'http://a.test/never-captured');
    b.page(C, '', ['http://a.test/old']); // C → old → older → C: a self-loop after redirects
    const g = b.build({ keepSelfLoops: false, maxRedirectHops: 20 });
    assert.deepEqual(edgesByUrl(g), [`${A} -> ${C}`]);
    assert.equal(g.nodeCount, 2, 'redirecting URLs are not nodes');
  });

  it('counts revisits as pages, and lists those whose links must come from their original', () => {
    const b = new LinkGraphBuilder();
    b.page(A, '', [B, C]);
    b.page(C, '', []);
    b.revisit(B, null, true, 'sha1:B'); // same URL, head says 2xx HTML, no response of B read: pending
    b.revisit(C, C, true); // same URL, and C's own response was read: nothing to do
    b.revisit('http://a.test/copy', A, null); // no head: a page because A is
    b.revisit('http://a.test/unknown', 'http://a.test/nothing', null);
    assert.deepEqual(b.pendingRevisits(), [
      { url: B, refersTo: B, digest: 'sha1:B', isPage: true },
      { url: 'http://a.test/copy', refersTo: A, digest: null, isPage: null },
      { url: 'http://a.test/unknown', refersTo: 'http://a.test/nothing', digest: null, isPage: null },
    ]);
    const g = b.build({ keepSelfLoops: false, maxRedirectHops: 20 });
    assert.deepEqual(g.urls.sort(), [A, B, C, 'http://a.test/copy'].sort());
    // Links are not copied here, already resolved against A: revisit-originals.ts reads A again for /copy.
    assert.deepEqual(edgesByUrl(g), [`${A} -> ${B}`, `${A} -> ${C}`]);
  });
});

describe('buildCsr', () => {
  it('sorts rows, removes duplicates and self-loops unless kept', () => {
    const src = Int32Array.from([2, 0, 0, 0, 1, 2, 2]);
    const dst = Int32Array.from([0, 2, 1, 2, 1, 0, 1]);
    const c = buildCsr(3, src, dst, 7, false);
    assert.deepEqual([...c.offsets], [0, 2, 2, 4]);
    assert.deepEqual([...c.targets], [1, 2, 0, 1]);
    const k = buildCsr(3, src, dst, 7, true);
    assert.deepEqual([...k.offsets], [0, 2, 3, 5]);
  });

  it('gives every row its distinct targets in order, short rows and long ones alike', () => {
    // Rows of 0 to ~60 edges with many repeats: both the insertion sort and the typed-array sort.
    const rand = mulberry32(4);
    const nodes = 200;
    const edges: [number, number][] = [];
    for (let u = 0; u < nodes; u++) {
      const len = Math.floor(rand() ** 2 * 60);
      for (let k = 0; k < len; k++) edges.push([u, Math.floor(rand() * (len + 1)) * 3 % nodes]);
    }
    edges.sort(() => rand() - 0.5);
    for (const keepSelfLoops of [false, true]) {
      const c = buildCsr(nodes, Int32Array.from(edges, (e) => e[0]), Int32Array.from(edges, (e) => e[1]), edges.length, keepSelfLoops);
      for (let u = 0; u < nodes; u++) {
        const want = [...new Set(edges.filter((e) => e[0] === u && (keepSelfLoops || e[1] !== u)).map((e) => e[1]))].sort((a, b) => a - b);
        assert.deepEqual([...c.targets.subarray(c.offsets[u]!, c.offsets[u + 1]!)], want, `row ${u}`);
      }
      assert.equal(c.offsets[nodes], c.targets.length);
    }
  });
});

describe('summarizeDegrees', () => {
  it('computes min, median, mean, max and power-of-two bins with empty bins kept', () => {
    const s = summarizeDegrees(Int32Array.from([0, 1, 1, 2, 3, 9]));
    assert.equal(s.min, 0);
    assert.equal(s.max, 9);
    assert.equal(s.median, 1.5);
    assert.equal(s.mean, 16 / 6);
    assert.deepEqual(s.histogram, { '0': 1, '1': 2, '2-3': 2, '4-7': 0, '8-15': 1 });
    assert.deepEqual(s.frequencies, [[0, 1], [1, 2], [2, 1], [3, 1], [9, 1]]);
    assert.equal(summarizeDegrees(Int32Array.from([5, 1, 3])).median, 3);
    assert.equal(logBinLabel(5), '16-31');
  });
});

describe('UrlInterner', () => {
  it('gives dense stable ids across Map rollovers', () => {
    const it = new UrlInterner(3);
    const ids = ['a', 'b', 'c', 'd', 'e', 'a', 'd'].map((u) => it.intern(u));
    assert.deepEqual(ids, [0, 1, 2, 3, 4, 0, 3]);
    assert.equal(it.lookup('e'), 4);
    assert.equal(it.lookup('zz'), -1);
    assert.deepEqual(it.urls, ['a', 'b', 'c', 'd', 'e']);
  });
});

describe('degreesSvg', () => {
  it('counts the pages of degree 0 in the legend, one page as "1 page"', () => {
    // The walk-through's plot said "1 pages at 0 not shown".
    const one = degreesSvg(summarizeDegrees(Int32Array.from([0, 1, 2])), summarizeDegrees(Int32Array.from([0, 0, 3])));
    assert.match(one, />in-degree \(1 page of degree 0, not shown\)</);
    assert.match(one, />out-degree \(2 pages of degree 0, not shown\)</);
    const none = degreesSvg(summarizeDegrees(Int32Array.from([1, 2])), summarizeDegrees(Int32Array.from([1, 1])));
    assert.match(none, />in-degree</);
    assert.doesNotMatch(none, /degree 0/);
  });
});
