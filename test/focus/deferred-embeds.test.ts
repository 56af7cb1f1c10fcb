/**
 * Issue 26, second round: on real documentation sites the stylesheets,
 * scripts and images of off-topic pages took about 40% of a focused
 * crawl's page budget (a Sphinx site with a budget of 18 fetched 3 pages).
 * In a crawl with a budget, a page's embeds wait for its verdict.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Directive, childUri, seedUri } from '../../src/core/crawl-uri.js';
import { deferEmbed, embedsWait, isDeferredEmbed } from '../../src/focus/deferred-embeds.js';

const page = { budgeted: true, training: false, threshold: 0.2, directive: Directive.normal } as const;

describe('deferred embeds', () => {
  it('makes the embeds of a page below the threshold wait, in a crawl with a budget only', () => {
    assert.equal(embedsWait({ ...page, relevance: 0.19 }), true);
    assert.equal(embedsWait({ ...page, relevance: 0.2 }), false);
    assert.equal(embedsWait({ ...page, relevance: 0, budgeted: false }), false);
    assert.equal(embedsWait({ ...page, relevance: 0, training: true }), false);
  });

  it('lets a capture without a verdict pass its embeds on at once only when it was fetched at once', () => {
    // A stylesheet embedded by a relevant page (directive high) fetches its fonts; one fetched as a waiting embed does not.
    assert.equal(embedsWait({ ...page, relevance: null, directive: Directive.high }), false);
    assert.equal(embedsWait({ ...page, relevance: null, directive: Directive.normal }), true);
  });

  it('queues a waiting embed as an unscored link, and knows it again', () => {
    const parent = { ...seedUri('http://a.test/'), priority: 2 };
    const img = childUri(parent, 'http://a.test/i.png', 'E', 'img/@src');
    img.priority = 1.5;
    assert.equal(img.directive, Directive.high);
    assert.equal(isDeferredEmbed(img), false);
    deferEmbed(img);
    assert.equal(img.directive, Directive.normal);
    assert.equal(img.priority, undefined);
    assert.equal(isDeferredEmbed(img), true);
    assert.equal(isDeferredEmbed(childUri(parent, 'http://a.test/b.html', 'L', 'a/@href')), false);
  });
});
