/**
 * `archiver analyze` end to end on WARC files written with warcio: the graph
 * from gzip/br/chunked/legacy-charset pages, redirects and revisits; bad
 * input (non-WARC files, broken HTTP heads, undecodable bodies, truncated
 * gzip) warned about and counted; the JSON, text and --out outputs; exit codes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeHelp, analyzeMain } from '../../src/cli/analyze-command.js';
import type { JsonReport } from '../../src/analysis/report.js';
import { captureIo, checkWellFormedXml } from '../analysis/cli-io.js';
import { pageHtml, record, warcBytes, type PageSpec } from '../analysis/synthetic.js';

const H = 'http://site.test';

function chunk(text: string): Buffer {
  const b = Buffer.from(text);
  const half = Math.floor(b.length / 2);
  const part = (p: Buffer): string => `${p.length.toString(16)}\r\n`;
  return Buffer.concat([
    Buffer.from(part(b.subarray(0, half))), b.subarray(0, half), Buffer.from('\r\n'),
    Buffer.from(part(b.subarray(half))), b.subarray(half), Buffer.from('\r\n0\r\n\r\n'),
  ]);
}

describe('archiver analyze', () => {
  let dir: string;
  let warcs: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
    warcs = path.join(dir, 'warcs');
    await fs.mkdir(path.join(warcs, 'nested'), { recursive: true });
    const gbkTitle = Buffer.from([0xc4, 0xe3, 0xba, 0xc3]); // 你好
    const gbkPage = Buffer.concat([
      Buffer.from('<html><head><meta charset="gbk"><title>'), gbkTitle,
      Buffer.from(`</title></head><body><a href="/">home</a><a href="/c#section">c</a></body></html>`),
    ]);
    const main: (PageSpec | ReturnType<typeof record>)[] = [
      { url: `${H}/`, html: pageHtml('Home', ['/b', '/c', '/old', '/missing', 'mailto:x@y', '/img.png', '/notfound']), encoding: 'gzip' },
      record({ url: `${H}/b`, encoding: 'br', headers: { 'Content-Type': 'text/html' } }, gbkPage),
      record({ url: `${H}/c`, headers: { 'Transfer-Encoding': 'chunked' } }, chunk(pageHtml('C', ['/', '/b', '/c']))),
      { url: `${H}/old`, status: 301, headers: { Location: '/older' } },
      { url: `${H}/older`, status: 302, headers: { Location: `${H}/d` } },
      { url: `${H}/img.png`, html: 'PNG', headers: { 'Content-Type': 'image/png' } },
      { url: `${H}/notfound`, status: 404, html: pageHtml('Not found', ['/']) },
      { url: `${H}/d`, html: pageHtml('D', ['/', 'javascript:void(0)']) },
      { url: `${H}/d2`, type: 'revisit', refersTo: `${H}/d` },
    ];
    const bytes = await warcBytes(main, true);
    await fs.writeFile(path.join(warcs, 'a.warc.gz'), bytes);
    // A page only an uncompressed WARC holds, links to /d2 (a revisit of /d).
    await fs.writeFile(
      path.join(warcs, 'nested', 'b.warc'),
      await warcBytes([{ url: `${H}/e`, html: pageHtml('E', ['/d2', '/']), headers: { 'Content-Type': 'application/xhtml+xml' } }], false),
    );
    // Bad input: a non-WARC file, a record with a broken HTTP head, an undecodable body, a truncated gzip WARC.
    await fs.writeFile(path.join(warcs, 'README.txt'), 'not a warc\n');
    const broken = await warcBytes([{ url: `${H}/ok`, html: pageHtml('OK', ['/']) }], true);
    const badHead = Buffer.from(
      `WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: ${H}/badhead\r\nWARC-Record-ID: <urn:uuid:1>\r\n` +
        `Content-Type: application/http; msgtype=response\r\nContent-Length: 24\r\n\r\nthis is no http head\r\n\r\n\r\n\r\n`,
    );
    const undecodable = await warcBytes(
      [record({ url: `${H}/undecodable`, headers: { 'Content-Encoding': 'gzip' } }, Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), Buffer.alloc(64, 0xff)]))],
      false,
    );
    await fs.writeFile(path.join(warcs, 'c-bad.warc'), Buffer.concat([badHead, undecodable, await warcBytes([{ url: `${H}/f`, html: pageHtml('F', ['/']) }], false)]));
    await fs.writeFile(path.join(warcs, 'd-truncated.warc.gz'), Buffer.concat([broken, bytes.subarray(0, Math.floor(bytes.length / 2))]));
  });

  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('builds the graph of issue 3 from gzip, br, chunked and legacy-charset pages, redirects and revisits', async () => {
    const io = captureIo();
    const code = await analyzeMain([warcs, '--json', '--top', '20'], io);
    assert.equal(code, 0, io.stderr.text);
    const report = JSON.parse(io.stdout.text) as JsonReport;
    const urls = report.pagerank.map((p) => p.url).sort();
    // Captured 2xx HTML: /, /b, /c, /d, /d2 (revisit), /e, /f, /ok (in the truncated file, before the cut).
    assert.deepEqual(urls, ['/', '/b', '/c', '/d', '/d2', '/e', '/f', '/ok'].map((p) => H + p).sort());
    const byUrl = new Map(report.pagerank.map((p) => [p.url.slice(H.length), p]));
    assert.equal(byUrl.get('/b')!.title, '你好');
    assert.equal(byUrl.get('/')!.title, 'Home');
    // / → b, c, d (via /old → /older → /d); b → /, c; c → /, b; d → /; d2 → / (inherited); e → d2, /; f → /; ok → /.
    assert.equal(byUrl.get('/')!.outDegree, 3);
    assert.equal(byUrl.get('/')!.inDegree, 7);
    assert.equal(byUrl.get('/d')!.inDegree, 1);
    assert.equal(byUrl.get('/d2')!.inDegree, 1);
    assert.equal(byUrl.get('/d2')!.outDegree, 1);
    assert.equal(report.pages, 8);
    assert.equal(report.edges, 13);
    assert.equal(report.dangling, 0);
    assert.equal(report.pagerank[0]!.url, `${H}/`);
    assert.ok(Math.abs(report.pagerank.reduce((s, p) => s + p.score, 0) - 1) < 1e-9);
    // Issue 3's keys first, then what else the text report says.
    assert.deepEqual(Object.keys(report), ['pages', 'edges', 'dangling', 'inDegree', 'outDegree', 'pagerank', 'links', 'revisits', 'convergence', 'read']);
    assert.deepEqual(Object.keys(report.inDegree), ['histogram', 'min', 'mean', 'median', 'max']);
    assert.equal(report.inDegree.min, 0);
    assert.equal(report.outDegree.min, 1);
    assert.deepEqual(report.links, { uncaptured: 2, uncapturedUrls: 1, nonPage: 4 });
    assert.deepEqual(report.revisits, { fromOriginal: 1, unresolved: 0 });
    assert.equal(report.convergence.alpha, 0.85);
    assert.equal(report.convergence.tolerance, 1e-6);
    assert.ok(report.convergence.iterations > 1 && report.convergence.l1Change < 1e-6, JSON.stringify(report.convergence));
    assert.deepEqual({ ...report.read, bytes: 0 }, { files: 4, records: 18, bytes: 0, skippedRecords: 2, skippedFiles: 1, damaged: 1 });
    assert.equal(report.inDegree.max, 7);
    assert.equal(report.inDegree.histogram['4-7'], 1);

    // Each kind of bad input is named with its file and offset.
    const warnings = io.stderr.text;
    assert.match(warnings, /README\.txt: not a WARC file at offset 0 \(.*\); file skipped/);
    assert.match(warnings, /c-bad\.warc: unreadable record at offset 0 \(http:\/\/site\.test\/badhead\)/);
    assert.match(warnings, /c-bad\.warc: undecodable body at offset \d+ \(http:\/\/site\.test\/undecodable\)/);
    assert.match(warnings, /d-truncated\.warc\.gz: cut short at offset \d+ \(the file ends inside a gzip member\); skipped the last \d+ bytes/);
  });

  it('prints a text report with the skipped records counted', async () => {
    const io = captureIo();
    assert.equal(await analyzeMain([warcs], io), 0);
    const text = io.stdout.text;
    assert.match(text, /skipped: 2 record\(s\), 1 non-WARC file\(s\), 1 cut or corrupt stretch\(es\) of WARC files/);
    assert.match(text, /^pages\s+8$/m);
    assert.match(text, /^edges\s+13$/m);
    // /missing, once per capture of / (the truncated file holds a second one).
    assert.match(text, /^links to uncaptured URLs\s+2 \(1 distinct URLs\)$/m);
    assert.match(text, /^links to captured non-pages\s+4$/m); // /img.png, /notfound
    assert.match(text, /^dangling pages\s+0$/m);
    assert.match(text, /^in\s+0\s+1\s+1\.63\s+7$/m);
    assert.match(text, /top 8 by PageRank/);
    assert.match(text, /^\s+1\s+\S+\s+7\s+3\s+Home\s+http:\/\/site\.test\/$/m);
  });

  it('keeps self-loops when asked', async () => {
    const io = captureIo();
    assert.equal(await analyzeMain([warcs, '--json', '--keep-self-loops'], io), 0);
    assert.equal((JSON.parse(io.stdout.text) as JsonReport).edges, 14); // c → c
  });

  it('writes nodes.csv, edges.csv, pagerank.csv and a well-formed degrees.svg with --out', async () => {
    const out = path.join(dir, 'out');
    const io = captureIo();
    assert.equal(await analyzeMain([warcs, '--out', out, '--json'], io), 0);
    const nodes = (await fs.readFile(path.join(out, 'nodes.csv'), 'utf8')).trim().split('\n');
    assert.equal(nodes[0], 'id,url,title,in_degree,out_degree,pagerank');
    assert.equal(nodes.length, 9);
    assert.ok(nodes.some((l) => l.startsWith(`0,${H}/,Home,7,3,`)));
    const edges = (await fs.readFile(path.join(out, 'edges.csv'), 'utf8')).trim().split('\n');
    assert.equal(edges.length, 14);
    assert.ok(edges.includes('0,1'));
    const ranks = (await fs.readFile(path.join(out, 'pagerank.csv'), 'utf8')).trim().split('\n');
    assert.match(ranks[1]!, new RegExp(`^1,0,0\\.\\d+,${H}/$`));
    const svg = await fs.readFile(path.join(out, 'degrees.svg'), 'utf8');
    const names = checkWellFormedXml(svg);
    assert.equal(names[0], 'svg');
    assert.ok(names.filter((n) => n === 'circle').length >= 4);
  });

  it('exits 4 with one clear line when there is no input', async () => {
    const empty = path.join(dir, 'empty');
    await fs.mkdir(empty);
    await fs.writeFile(path.join(empty, 'notes.txt'), 'hello');
    const io = captureIo();
    assert.equal(await analyzeMain([empty], io), 4);
    assert.match(io.stderr.text, /no input.*\[ARCHIVER_NO_INPUT\]\n$/);
    assert.equal(io.stdout.text, '');
  });

  // Issue 28: a path that does not exist was warned about, then reported as "no WARC files found".
  it('a path that does not exist: exit 4, one line saying so', async () => {
    const missing = path.join(dir, 'does-not-exist');
    const io = captureIo();
    assert.equal(await analyzeMain([missing], io), 4);
    assert.equal(io.stderr.text, `archiver analyze: ${missing}: no such file or directory (ENOENT) [ARCHIVER_NO_INPUT]\n`);
    assert.equal(io.stdout.text, '');
  });

  it('exits 2 on usage errors and 0 with every option explained for --help', async () => {
    // No input named is a usage error too (2), as for every command.
    for (const argv of [[], ['--top', '-1', warcs], ['--alpha', '1', warcs], ['--tolerance', '0', warcs], ['--bogus', warcs], ['--max-iterations', '2.5', warcs], ['--top']]) {
      const io = captureIo();
      assert.equal(await analyzeMain(argv, io), 2, argv.join(' '));
      assert.match(io.stderr.text, /\[ARCHIVER_USAGE\]/);
    }
    const io = captureIo();
    assert.equal(await analyzeMain(['--help'], io), 0);
    for (const opt of ['--top', '--json', '--out', '--alpha', '--tolerance', '--max-iterations', '--keep-self-loops', '--help']) {
      assert.ok(analyzeHelp.includes(opt) && io.stdout.text.includes(opt), opt);
    }
  });

  it('exits 1 with a coded error when PageRank does not converge', async () => {
    const io = captureIo();
    assert.equal(await analyzeMain([warcs, '--max-iterations', '1'], io), 1);
    assert.match(io.stderr.text, /\[ARCHIVER_PAGERANK_NOT_CONVERGED\]/);
    assert.equal(io.stdout.text, '');
  });

  it('shows progress (records, MB, rate) at most once per interval', async () => {
    let now = 0;
    const io = { ...captureIo(), clock: { now: () => (now += 600) } };
    assert.equal(await analyzeMain([warcs, '--json'], io), 0);
    const lines = io.stderr.text.split('\n').filter((l) => l.startsWith('analyze: '));
    assert.ok(lines.length >= 3, io.stderr.text);
    assert.match(lines[0]!, /^analyze: \d+ records, \d+\.\d MB read, \d+\.\d MB\/s \(.+\)$/);
    assert.match(lines.at(-1)!, /^analyze: read done, \d+ records/);
    // 600 ms per clock read, 1000 ms interval: never two lines for consecutive records.
    const records = lines.slice(0, -1).map((l) => Number(/(\d+) records/.exec(l)![1]));
    for (let i = 1; i < records.length; i++) assert.ok(records[i]! > records[i - 1]!);
  });
});
