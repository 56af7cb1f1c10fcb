/**
 * `--gexf`: the files are read back with graphology-gexf's parser (the same
 * library family Sigma.js and our writer use) and compared with the
 * analysis: node and edge counts, node ids, attributes, edge weights; the
 * page graph capped to the pages of highest PageRank with the links among
 * them; titles with characters XML forbids still give a readable file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DirectedGraph } from 'graphology';
import { parse } from 'graphology-gexf';
import { analyzeGraph, type AnalysisOptions, type AnalysisResult } from '../../src/analysis/analysis.js';
import { writeGexf, xmlSafe } from '../../src/analysis/gexf-export.js';
import { LinkGraphBuilder } from '../../src/analysis/graph-builder.js';
import { hostOfHref as hostOf } from '../../src/url/hosts.js';
import { topNodes } from '../../src/analysis/pagerank.js';
import type { ReadStats } from '../../src/analysis/warc-reader.js';
import { prng } from './synthetic.js';

const READ: ReadStats = { files: 1, skippedFiles: 0, records: 1, skippedRecords: 0, damaged: 0, bytesRead: 1 };
const OPTIONS: AnalysisOptions = { alpha: 0.85, tolerance: 1e-10, maxIterations: 200, keepSelfLoops: false };

/** A few hundred pages on a dozen hosts, with URLs and titles that need escaping in XML. */
function analysis(hosts: boolean): AnalysisResult {
  const rand = prng(11);
  const urls = Array.from({ length: 300 }, (_, i) => `http://h${i % 12}.test:${Math.floor(i / 12) % 2 === 0 ? 80 : 8080}/p?i=${i}&q="x"<y>`);
  const b = new LinkGraphBuilder();
  urls.forEach((url, i) => {
    const links = Array.from({ length: Math.floor(rand() * 8) }, () => urls[Math.floor(urls.length * rand() ** 2)]!);
    b.page(new URL(url).href, i % 5 === 0 ? `Page ${i} \u0001 & <b> "é" \uFFFE` : '', links.map((l) => new URL(l).href));
  });
  return analyzeGraph(b.build({ keepSelfLoops: false, maxRedirectHops: 20 }), READ, { ...OPTIONS, hosts });
}

describe('writeGexf', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-gexf-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes the whole page graph when it is under the cap: ids, attributes, every edge', async () => {
    const r = analysis(false);
    const file = path.join(dir, 'pages.gexf');
    const summary = await writeGexf(r, file, 10_000);
    const g = parse(DirectedGraph, await fs.readFile(file, 'utf8'));
    assert.deepEqual(summary, { file, graph: 'pages', nodes: r.graph.nodeCount, edges: r.graph.targets.length });
    assert.equal(g.order, r.graph.nodeCount);
    assert.equal(g.size, r.graph.targets.length);
    for (let u = 0; u < r.graph.nodeCount; u++) {
      const url = r.graph.urls[u]!;
      const a = g.getNodeAttributes(url);
      assert.equal(a['pagerank'], r.rank.scores[u], url);
      assert.equal(a['inDegree'], r.inDegree[u]);
      assert.equal(a['outDegree'], r.outDegree[u]);
      assert.equal(a['label'], url);
      assert.equal(a['title'], r.graph.titles[u] === '' ? undefined : xmlSafe(r.graph.titles[u]!));
      for (let j = r.graph.offsets[u]!; j < r.graph.offsets[u + 1]!; j++) assert.ok(g.hasDirectedEdge(url, r.graph.urls[r.graph.targets[j]!]!));
    }
    assert.equal(g.getNodeAttribute(r.graph.urls[0]!, 'title'), 'Page 0  & <b> "é" ');
  });

  it('caps the page graph to the pages of highest PageRank and the links among them', async () => {
    const r = analysis(false);
    const file = path.join(dir, 'capped.gexf');
    const summary = await writeGexf(r, file, 100);
    const g = parse(DirectedGraph, await fs.readFile(file, 'utf8'));
    const top = new Set(topNodes(r.rank.scores, 100).map((u) => r.graph.urls[u]!));
    assert.deepEqual(new Set(g.nodes()), top);
    let among = 0;
    for (let u = 0; u < r.graph.nodeCount; u++) {
      for (let j = r.graph.offsets[u]!; j < r.graph.offsets[u + 1]!; j++) {
        if (top.has(r.graph.urls[u]!) && top.has(r.graph.urls[r.graph.targets[j]!]!)) among++;
      }
    }
    assert.ok(among > 0 && among < r.graph.targets.length);
    assert.equal(g.size, among);
    assert.deepEqual([summary.nodes, summary.edges], [100, among]);
    // Attributes are the figures of the whole graph.
    const best = topNodes(r.rank.scores, 1)[0]!;
    assert.equal(g.getNodeAttribute(r.graph.urls[best]!, 'inDegree'), r.inDegree[best]);
  });

  it('writes the host graph with --hosts: node id = host, edge weight, the host metrics as attributes', async () => {
    const r = analysis(true);
    const hosts = r.hosts!;
    const file = path.join(dir, 'hosts.gexf');
    const summary = await writeGexf(r, file, 10);
    const g = parse(DirectedGraph, await fs.readFile(file, 'utf8'));
    assert.deepEqual(summary, { file, graph: 'hosts', nodes: hosts.rows.length, edges: hosts.edges });
    assert.equal(g.order, 24); // h0..h11, each on two ports; the cap is for pages only
    assert.equal(g.size, hosts.edges);
    for (const row of hosts.rows) {
      const { label, ...attributes } = g.getNodeAttributes(row.host);
      assert.equal(label, row.host);
      assert.deepEqual(attributes, {
        pages: row.pages,
        pagerank: row.pagerank,
        hub: row.hub,
        authority: row.authority,
        inDegree: row.inDegree,
        outDegree: row.outDegree,
      });
    }
    // Edge weights recounted from the page graph.
    const weights = new Map<string, number>();
    for (let u = 0; u < r.graph.nodeCount; u++) {
      for (let j = r.graph.offsets[u]!; j < r.graph.offsets[u + 1]!; j++) {
        const [a, b] = [hostOf(r.graph.urls[u]!), hostOf(r.graph.urls[r.graph.targets[j]!]!)];
        if (a !== b) weights.set(`${a} ${b}`, (weights.get(`${a} ${b}`) ?? 0) + 1);
      }
    }
    assert.equal(g.size, weights.size);
    g.forEachEdge((_e, attr, source, target) => assert.equal(attr['weight'], weights.get(`${source} ${target}`), `${source} -> ${target}`));
  });
});
