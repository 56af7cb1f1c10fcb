/**
 * The host graph of `analyze --hosts`: a node per host[:port], edges weighted
 * by the page links between hosts, links within a host left out, pages
 * counted per host — built from a page graph made by the real graph builder.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LinkGraphBuilder } from '../../src/analysis/graph-builder.js';
import { buildHostGraph } from '../../src/analysis/host-graph.js';
import { hostOfHref as hostOf } from '../../src/url/hosts.js';
import { normalizeCaptureUrl } from '../../src/analysis/link-extract.js';

describe('hostOf', () => {
  it('gives what URL.host gives for serialized URLs, ports, userinfo, IPv6 and IDN included', () => {
    const raw = [
      'http://a.test/',
      'HTTPS://A.Test:8443/x?y=1#frag',
      'http://h.test:80/default-port',
      'https://h.test:443/',
      'http://u:p@h.test:81/',
      'http://a%40b:c@h.test/x@y',
      'http://h.test?q=/x',
      'http://[::1]:8080/p',
      'http://bücher.example/ä',
      'http://127.0.0.3:8421/s/1/',
    ];
    for (const r of raw) {
      const url = normalizeCaptureUrl(r)!;
      assert.equal(hostOf(url.href), url.host, r);
    }
  });
});

describe('buildHostGraph', () => {
  it('weights host edges by page links, leaves out links within a host and counts pages per host', () => {
    const b = new LinkGraphBuilder();
    const A = 'http://a.test';
    const B = 'http://b.test:8080';
    const C = 'https://c.test';
    const D = 'http://d.test';
    // a.test: 4 pages (one over https: same host), b.test:8080: 2, c.test: 1 (no links out), d.test: 1 (links only to itself).
    b.page(`${A}/`, '', [`${A}/1`, `${B}/`, `${B}/`, `${B}/x`, 'http://b.test/', `${A}/`]);
    b.page(`${A}/1`, '', [`${B}/x`, `${C}/`]);
    b.page(`${A}/2`, '', [`${B}/`]);
    b.page('https://a.test/3', '', [`${A}/`]);
    b.page(`${B}/`, '', [`${A}/`, `${A}/1`, `${B}/x`]);
    b.page(`${B}/x`, '', [`${A}/2`, 'http://elsewhere.test/']);
    b.page(`${C}/`, '', []);
    b.page(`${D}/`, '', [`${D}/`, `${D}/`]);
    const pages = b.build({ keepSelfLoops: true, maxRedirectHops: 20 });
    const g = buildHostGraph(pages);

    assert.deepEqual(
      g.mapNodes((host, attr) => [host, attr.pages]),
      [['a.test', 4], ['b.test:8080', 2], ['c.test', 1], ['d.test', 1]],
    );
    const edges = g.mapEdges((key, attr, source, target) => `${key} ${source} -> ${target} ${attr.weight}`);
    // a→b: /→b/ (the duplicate collapses in the page graph), /→b/x, /1→b/x, /2→b/ = 4; http://b.test/ is no page.
    // a→c: /1→c/ = 1.  b→a: b/→a/, b/→a/1, b/x→a/2 = 3.  Within a host (a/→a/1, a/3→a/, b/→b/x, d/→d/) left out.
    assert.deepEqual(edges, ['0 a.test -> b.test:8080 4', '1 a.test -> c.test 1', '2 b.test:8080 -> a.test 3']);
    assert.equal(g.type, 'directed');
    assert.equal(g.multi, false);
  });

  it('gives an empty graph for no pages, and hosts without edges for pages that only link within their host', () => {
    const empty = new LinkGraphBuilder().build({ keepSelfLoops: false, maxRedirectHops: 20 });
    assert.equal(buildHostGraph(empty).order, 0);
    const b = new LinkGraphBuilder();
    b.page('http://one.test/', '', ['http://one.test/a']);
    b.page('http://one.test/a', '', ['http://one.test/']);
    const g = buildHostGraph(b.build({ keepSelfLoops: false, maxRedirectHops: 20 }));
    assert.equal(g.order, 1);
    assert.equal(g.size, 0);
    assert.equal(g.getNodeAttribute('one.test', 'pages'), 2);
  });
});
