/**
 * `archiver analyze --hosts --gexf --out` end to end on a crawled web: the
 * multi-host fixture web on loopback, crawled by archiver and by GNU wget,
 * both tools' WARCs analyzed together. The host graph is recomputed here from
 * the page graph the same run exports (edges.csv, nodes.csv), its PageRank by
 * a plain power iteration; the GEXF is read back with graphology-gexf and its
 * counts compared with the report's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DirectedGraph } from 'graphology';
import { parse } from 'graphology-gexf';
import { analyzeHelp, analyzeMain } from '../../src/cli/analyze-command.js';
import type { JsonReport } from '../../src/analysis/report.js';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { captureIo } from '../analysis/cli-io.js';
import { referencePagerank, type WeightedEdge } from '../analysis/reference-metrics.js';
import { needs } from '../helpers/programs.js';

/** Skipped, with what to install, when wget is not on the machine (npm test's pretest installs it on Debian as root). */
const missingWget = needs('wget', 'wget');

/** The CSV files --out writes have no quoted fields in the columns read here (ids, and URLs of this web). */
function csvRows(text: string): string[][] {
  return text.trim().split('\n').slice(1).map((l) => l.split(','));
}

describe('archiver analyze --hosts --gexf on a crawled multi-host web (archiver and wget WARCs)', missingWget, () => {
  let dir: string;
  let web: FixtureWeb;
  let warcDirs: string[];

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-hosts-'));
    web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 6, port: 0 });
    const job = path.join(dir, 'job');
    const profile = validateProfile(testProfileJson('hosts', web.seeds, job), 'hosts');
    await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
    await fs.mkdir(path.join(dir, 'wget'));
    const domains = web.origins.map((o) => new URL(o).hostname).join(',');
    // wget exits 8 when some fetch answered an error status (the fixture's 404s): expected.
    await promisify(execFile)(
      'wget',
      ['--recursive', '--level=inf', '--span-hosts', `--domains=${domains}`, '--tries=1', '--timeout=5', '--no-verbose',
        `--directory-prefix=${path.join(dir, 'files')}`, `--warc-file=${path.join(dir, 'wget', 'wget')}`, ...web.seeds],
      { timeout: 60_000 },
    ).catch((err: { code?: number }) => {
      if (err.code !== 8) throw err;
    });
    assert.deepEqual(await fs.readdir(path.join(dir, 'wget')), ['wget.warc.gz']);
    warcDirs = [path.join(job, 'warcs'), path.join(dir, 'wget')];
  });

  after(async () => {
    await web.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('reports every host in JSON and hosts.csv, and writes a GEXF of the same host graph', async () => {
    const out = path.join(dir, 'out');
    const gexfFile = path.join(dir, 'hosts.gexf');
    const io = captureIo();
    const code = await analyzeMain([...warcDirs, '--hosts', '--gexf', gexfFile, '--out', out, '--json', '--top', '2'], io);
    assert.equal(code, 0, io.stderr.text);
    const report = JSON.parse(io.stdout.text) as JsonReport;
    const hosts = report.hosts!;

    // The host graph recomputed from the page graph of the same run.
    const urlOf = new Map(csvRows(await fs.readFile(path.join(out, 'nodes.csv'), 'utf8')).map((r) => [r[0]!, r[1]!]));
    assert.equal(urlOf.size, report.pages);
    const hostOfId = (id: string): string => new URL(urlOf.get(id)!).host;
    const weights = new Map<string, number>();
    const pages = new Map<string, number>();
    for (const id of urlOf.keys()) pages.set(hostOfId(id), (pages.get(hostOfId(id)) ?? 0) + 1);
    for (const [s, t] of csvRows(await fs.readFile(path.join(out, 'edges.csv'), 'utf8'))) {
      const [a, b] = [hostOfId(s!), hostOfId(t!)];
      if (a !== b) weights.set(`${a} ${b}`, (weights.get(`${a} ${b}`) ?? 0) + 1);
    }
    const fixtureHosts = web.origins.map((o) => new URL(o).host).sort();
    assert.deepEqual([...pages.keys()].sort(), fixtureHosts);
    assert.ok(weights.size >= 3, 'the fixture web links across hosts');

    assert.deepEqual(hosts.map((h) => h.host).sort(), fixtureHosts);
    assert.equal(report.hostEdges, weights.size);
    for (const h of hosts) assert.deepEqual(Object.keys(h), ['host', 'pages', 'inDegree', 'outDegree', 'pagerank', 'hub', 'authority']);
    for (let i = 1; i < hosts.length; i++) assert.ok(hosts[i - 1]!.pagerank >= hosts[i]!.pagerank, 'highest PageRank first');
    const edges: WeightedEdge[] = [...weights].map(([k, weight]) => {
      const [source, target] = k.split(' ') as [string, string];
      return { source, target, weight };
    });
    const want = referencePagerank(fixtureHosts, edges, 0.85);
    for (const h of hosts) {
      assert.equal(h.pages, pages.get(h.host));
      assert.equal(h.outDegree, edges.filter((e) => e.source === h.host).reduce((s, e) => s + e.weight, 0));
      assert.equal(h.inDegree, edges.filter((e) => e.target === h.host).reduce((s, e) => s + e.weight, 0));
      assert.ok(Math.abs(h.pagerank - want.get(h.host)!) < 1e-8, `${h.host}: ${h.pagerank} vs ${want.get(h.host)}`);
    }

    // hosts.csv: the same rows, same order.
    const csv = csvRows(await fs.readFile(path.join(out, 'hosts.csv'), 'utf8'));
    assert.deepEqual(
      csv.map((r) => [r[1], Number(r[2]), Number(r[3]), Number(r[4]), Number(r[5]), Number(r[6]), Number(r[7])]),
      hosts.map((h) => [h.host, h.pages, h.inDegree, h.outDegree, h.pagerank, h.hub, h.authority]),
    );

    // The GEXF read back: counts equal to the report's, weights and attributes equal to the run's.
    const g = parse(DirectedGraph, await fs.readFile(gexfFile, 'utf8'));
    assert.deepEqual(report.gexf, { file: gexfFile, graph: 'hosts', nodes: hosts.length, edges: weights.size });
    assert.equal(g.order, hosts.length);
    assert.equal(g.size, report.hostEdges);
    g.forEachEdge((_e, attr, source, target) => assert.equal(attr['weight'], weights.get(`${source} ${target}`)));
    for (const h of hosts) {
      assert.equal(g.getNodeAttribute(h.host, 'pagerank'), h.pagerank);
      assert.equal(g.getNodeAttribute(h.host, 'inDegree'), h.inDegree);
      assert.equal(g.getNodeAttribute(h.host, 'outDegree'), h.outDegree);
    }
  });

  it('prints the host table and the GEXF counts in the text report; without --hosts the GEXF is the page graph', async () => {
    const gexfFile = path.join(dir, 'text.gexf');
    const io = captureIo();
    assert.equal(await analyzeMain([...warcDirs, '--hosts', '--gexf', gexfFile, '--top', '2'], io), 0, io.stderr.text);
    const text = io.stdout.text;
    assert.match(text, /^hosts\s+3$/m);
    const hostEdges = Number(/^edges between hosts\s+(\d+)$/m.exec(text)![1]);
    const g = parse(DirectedGraph, await fs.readFile(gexfFile, 'utf8'));
    assert.match(text, new RegExp(`^GEXF\\s+.*text\\.gexf: 3 nodes, ${g.size} edges \\(host graph\\)$`, 'm'));
    assert.equal(g.size, hostEdges);
    assert.match(text, /top 2 hosts by PageRank/);
    assert.equal(text.split('\n').filter((l) => /^\s+[12]\s.*127\.0\.0\.\d+:\d+$/.test(l)).length, 2);

    const pagesIo = captureIo();
    const pagesFile = path.join(dir, 'pages.gexf');
    assert.equal(await analyzeMain([...warcDirs, '--gexf', pagesFile, '--gexf-max-nodes', '5', '--json'], pagesIo), 0);
    const report = JSON.parse(pagesIo.stdout.text) as JsonReport;
    assert.equal(report.hosts, undefined);
    const pg = parse(DirectedGraph, await fs.readFile(pagesFile, 'utf8'));
    assert.deepEqual(pg.nodes().sort(), report.pagerank.slice(0, 5).map((p) => p.url).sort());
    assert.deepEqual(report.gexf, { file: pagesFile, graph: 'pages', nodes: 5, edges: pg.size });
  });

  it('rejects a bad --gexf-max-nodes or a --gexf without a file, and explains the options in --help', async () => {
    for (const argv of [['--gexf-max-nodes', '0', ...warcDirs], ['--gexf-max-nodes', '1.5', ...warcDirs], [...warcDirs, '--gexf']]) {
      const io = captureIo();
      assert.equal(await analyzeMain(argv, io), 2, argv.join(' '));
      assert.match(io.stderr.text, /\[ARCHIVER_USAGE\]/);
    }
    for (const opt of ['--hosts', '--gexf FILE', '--gexf-max-nodes N', 'hosts.csv']) assert.ok(analyzeHelp.includes(opt), opt);
  });
});
