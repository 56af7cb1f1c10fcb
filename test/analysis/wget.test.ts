/**
 * Reading another tool's WARCs: GNU wget crawls a small site served on
 * loopback (port 0) with --warc-file, and `archiver analyze` must find the
 * same link graph — including a 301 followed to its target, a chunked page,
 * a page with a query string and links with fragments. wget wraps
 * WARC-Target-URI in <…> and adds request/metadata/resource records.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { analyzeMain } from '../../src/cli/analyze-command.js';
import type { JsonReport } from '../../src/analysis/report.js';
import { captureIo } from './cli-io.js';
import { pageHtml } from './synthetic.js';
import { needs } from '../helpers/programs.js';

/** Skipped, with what to install, when wget is not on the machine (npm test's pretest installs it on Debian as root). */
const missingWget = needs('wget', 'wget');

const SITE: Record<string, { links?: string[]; title?: string; redirect?: string; chunked?: boolean; type?: string }> = {
  '/': { title: 'Home', links: ['/a.html', '/b.html#part', '/moved', '/page?x=1', '/img.png', 'mailto:me@example.test'] },
  '/a.html': { title: 'A', links: ['/', 'b.html'] },
  '/b.html': { title: 'B', links: ['/', '/a.html', '/b.html'], chunked: true },
  '/moved': { redirect: '/c.html' },
  '/c.html': { title: 'C', links: ['/'] },
  '/page?x=1': { title: 'Query', links: ['/a.html'] },
  '/img.png': { type: 'image/png' },
};

describe('archiver analyze on WARCs written by GNU wget', missingWget, () => {
  let dir: string;
  let server: http.Server;
  let origin: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
    server = http.createServer((req, res) => {
      const page = SITE[req.url ?? ''];
      if (!page) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      } else if (page.redirect) {
        res.writeHead(301, { Location: page.redirect }).end();
      } else if (page.type) {
        res.writeHead(200, { 'Content-Type': page.type }).end('\x89PNG');
      } else {
        const body = pageHtml(page.title!, page.links!);
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        if (page.chunked) {
          // No Content-Length: node sends Transfer-Encoding: chunked, which wget stores as received.
          res.write(body.slice(0, 50));
          res.end(body.slice(50));
        } else {
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        }
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await fs.mkdir(path.join(dir, 'warcs'));
    await promisify(execFile)(
      'wget',
      ['--recursive', '--level=5', '-e', 'robots=off', '--no-verbose', '--tries=1', '--timeout=5',
        `--warc-file=${path.join(dir, 'warcs', 'crawl')}`, '--directory-prefix', path.join(dir, 'mirror'), `${origin}/`],
      { timeout: 20_000 },
    );
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('finds the pages and links of the crawled site', async () => {
    const files = await fs.readdir(path.join(dir, 'warcs'));
    assert.ok(files.includes('crawl.warc.gz'), files.join(','));
    const io = captureIo();
    const code = await analyzeMain([path.join(dir, 'warcs'), '--json', '--top', '10'], io);
    assert.equal(code, 0, io.stderr.text);
    assert.doesNotMatch(io.stderr.text, /warning/);
    const report = JSON.parse(io.stdout.text) as JsonReport;
    const pages = new Map(report.pagerank.map((p) => [p.url.slice(origin.length), p]));
    assert.deepEqual([...pages.keys()].sort(), ['/', '/a.html', '/b.html', '/c.html', '/page?x=1']);
    // / → a, b, c (via the 301), page; a → /, b; b → /, a (self-loop dropped); c → /; page → a.
    assert.equal(report.pages, 5);
    assert.equal(report.edges, 10);
    assert.deepEqual(
      ['/', '/a.html', '/b.html', '/c.html', '/page?x=1'].map((u) => [pages.get(u)!.outDegree, pages.get(u)!.inDegree]),
      [[4, 3], [2, 3], [2, 2], [1, 1], [1, 1]],
    );
    assert.equal(pages.get('/')!.title, 'Home');
    assert.equal(report.pagerank[0]!.url, `${origin}/`);
    assert.equal(report.dangling, 0);
  });
});
