/**
 * What `archiver analyze` is given in practice, and revisits.
 *
 * A new user's walk-through found: `analyze jobs/site` warned 21 times
 * "not a WARC file" (reports, LevelDB files, the WACZ) instead of reading
 * the job's WARCs; a WACZ was refused; and a revisit (identical payload of
 * another capture) got no title, and links copied from its original
 * already resolved — against the original's URL, minus the original's
 * self-link — so a revisit of /docs/ lost its link to /docs/index.html.
 *
 * Here: a job directory, its WACZ, and a second crawl deduplicated against
 * the first (every page a revisit) give the same graph as the first crawl,
 * titles included; the earlier crawl is found through the second's crawl
 * report. Without the originals the revisits are counted unresolved. A
 * revisit of another URL takes its original's links resolved against its
 * own URL.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { JsonReport } from '../../src/analysis/report.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { pageHtml, warcBytes } from '../analysis/synthetic.js';
import { crawlJob } from '../wacz/crawl-job.js';

async function analyze(args: string[]): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const io = captureIo();
  const code = await main(['analyze', ...args, '--json', '--top', '1000'], io);
  return { code, report: code === 0 ? (JSON.parse(io.stdout.text) as JsonReport) : (null as unknown as JsonReport), stderr: io.stderr.text };
}

/** Each page's title and sorted out-links, by URL path. */
function pagesOf(report: JsonReport): Map<string, { title: string; inDegree: number; outDegree: number }> {
  return new Map(report.pagerank.map((p) => [new URL(p.url).pathname + '@' + new URL(p.url).host, { title: p.title, inDegree: p.inDegree, outDegree: p.outDegree }]));
}

describe('archiver analyze on jobs, WACZs and revisits', () => {
  let tmp: string;
  let web: FixtureWeb;
  let first: string;
  let second: string;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-analyze-'));
    web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 4, port: 0 });
    first = (await crawlJob(web, tmp, 'first')).dir;
    // A second later, so the two crawls' captures never share a 14-digit timestamp.
    await new Promise((r) => setTimeout(r, 1100));
    second = (await crawlJob(web, tmp, 'second', { dedup: { against: [first] } })).dir;
  });

  after(async () => {
    await web.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('reads a job directory as its WARCs, with no warning about its other files', async () => {
    const job = await analyze([first]);
    assert.equal(job.code, 0, job.stderr);
    assert.doesNotMatch(job.stderr, /not a WARC|warning/);
    const warcs = await analyze([path.join(first, 'warcs')]);
    assert.deepEqual(job.report.pagerank, warcs.report.pagerank);
    assert.ok(job.report.pages > 5, String(job.report.pages));
    assert.ok(job.report.pagerank.every((p) => p.title !== ''), 'every fixture page has a title');
  });

  it('reads the WARCs stored in a WACZ, giving the graph of the job', async () => {
    const job = await analyze([first]);
    const wacz = await analyze([path.join(first, 'first.wacz')]);
    assert.equal(wacz.code, 0, wacz.stderr);
    assert.doesNotMatch(wacz.stderr, /warning/);
    assert.deepEqual(wacz.report.pagerank, job.report.pagerank);
    assert.equal(wacz.report.edges, job.report.edges);
  });

  it('gives the revisits of a deduplicated crawl their originals\' titles and links, from the dedup.against job', async () => {
    const report = JSON.parse(await fs.readFile(path.join(second, 'reports', 'crawl-report.json'), 'utf8')) as { dedupAgainst: string[] };
    assert.deepEqual(report.dedupAgainst, [path.resolve(first)]);
    const one = await analyze([first]);
    const two = await analyze([second]);
    assert.equal(two.code, 0, two.stderr);
    assert.ok(two.report.revisits.fromOriginal >= one.report.pages, JSON.stringify(two.report.revisits));
    assert.equal(two.report.revisits.unresolved, 0);
    // The same web crawled twice: the same graph, whether its payloads were archived again or not.
    assert.equal(two.report.pages, one.report.pages);
    assert.equal(two.report.edges, one.report.edges);
    assert.deepEqual(pagesOf(two.report), pagesOf(one.report));
  });

  it('counts revisits whose original is not among the inputs as unresolved', async () => {
    const alone = await analyze([path.join(second, 'warcs')]);
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(alone.report.revisits.fromOriginal, 0);
    assert.ok(alone.report.revisits.unresolved > 5, JSON.stringify(alone.report.revisits));
    assert.equal(alone.report.edges, 0);
    const io = captureIo();
    assert.equal(await main(['analyze', path.join(second, 'warcs')], io), 0);
    assert.match(io.stdout.text, /^revisits\s+\d+ unresolved \(original not among the inputs: no links, no title\)$/m);
  });
});

describe('a revisit of another URL', () => {
  let tmp: string;
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-revisit-'));
    const H = 'http://docs.test';
    // The revisit comes first, its original in a later file: the order of the inputs does not matter.
    await fs.writeFile(
      path.join(tmp, 'a.warc.gz'),
      await warcBytes(
        [
          { url: `${H}/docs/`, type: 'revisit', refersTo: `${H}/docs/index.html` },
          { url: `${H}/copy/page.html`, type: 'revisit', refersTo: `${H}/docs/index.html` },
          { url: `${H}/lost.html`, type: 'revisit', refersTo: `${H}/never-captured.html` },
        ],
        true,
      ),
    );
    await fs.writeFile(
      path.join(tmp, 'b.warc.gz'),
      await warcBytes(
        [
          { url: `${H}/docs/index.html`, html: pageHtml('Docs', ['index.html', 'guide.html', '/']) },
          { url: `${H}/docs/guide.html`, html: pageHtml('Guide', ['index.html']) },
          { url: `${H}/copy/guide.html`, html: pageHtml('Copied guide', []) },
          { url: `${H}/`, html: pageHtml('Home', ['/docs/']) },
        ],
        true,
      ),
    );
  });
  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('takes the original\'s title, and its links resolved against the revisit\'s own URL', async () => {
    const out = path.join(tmp, 'out');
    const io = captureIo();
    assert.equal(await main(['analyze', tmp, '--out', out], io), 0, io.stderr.text);
    const nodes = (await fs.readFile(path.join(out, 'nodes.csv'), 'utf8')).trim().split('\n').slice(1);
    const edges = (await fs.readFile(path.join(out, 'edges.csv'), 'utf8')).trim().split('\n').slice(1);
    const urlOf = new Map(nodes.map((l) => [l.split(',')[0]!, l.split(',')[1]!]));
    const titleOf = new Map(nodes.map((l) => [l.split(',')[1]!, l.split(',')[2]!]));
    const links = new Set(edges.map((l) => l.split(',').map((id) => urlOf.get(id)!.replace('http://docs.test', '')).join(' -> ')));
    assert.equal(titleOf.get('http://docs.test/docs/'), 'Docs');
    assert.equal(titleOf.get('http://docs.test/copy/page.html'), 'Docs');
    assert.equal(titleOf.get('http://docs.test/lost.html'), '');
    // /docs/ keeps its link to /docs/index.html (the original's self-link, not the revisit's).
    for (const l of ['/docs/ -> /docs/index.html', '/docs/ -> /docs/guide.html', '/docs/ -> /']) assert.ok(links.has(l), l);
    // Relative links of /copy/page.html resolve under /copy/.
    assert.ok(links.has('/copy/page.html -> /copy/guide.html'));
    assert.ok(!links.has('/copy/page.html -> /docs/guide.html'));
    const json = await analyze([tmp]);
    assert.deepEqual(json.report.revisits, { fromOriginal: 2, unresolved: 1 });
  });
});
