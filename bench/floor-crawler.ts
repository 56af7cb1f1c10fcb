/**
 * A measuring stick, not a crawler anyone should use: the least a crawler
 * written for Node on the project's own packages does for a page, so that
 * the real-site bench (real-sites.ts) can show what a fresh Node process
 * pays at the minimum, beside wget and archiver. It fetches over one
 * keep-alive connection with undici, asking for gzip as archiver does;
 * inflates HTML and reads links with parse5's Tokenizer (href and src of
 * a, link, img, script, iframe, source, same origin only); and writes a
 * request and a response record per URI, each a gzip member with its SHA-1
 * digests, to one WARC file.
 *
 * Everything archiver does beyond that is left out: robots.txt, politeness,
 * the crawl state on disk and resume, page text, metadata records, the
 * capture journal, crawl.log, the CDXJ index, the WACZ, a second thread.
 * The WARC headers are written by hand, the cheapest way (archiver's
 * writer, and warcio's, do more). One thread, one isolate: one JIT warm-up.
 *
 *   node dist/bench/floor-crawler.js http://127.0.0.1:8080 out.warc.gz
 *
 * Prints the URIs it fetched on stderr. Loopback only, as every bench.
 */
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Tokenizer, type Token, type TokenHandler } from 'parse5';
import { Client } from 'undici';

/** The attribute holding a link, by tag name. */
const LINK_ATTRIBUTE: Readonly<Record<string, string>> = { a: 'href', link: 'href', img: 'src', script: 'src', iframe: 'src', source: 'src' };

function sha1(bytes: Uint8Array): string {
  return `sha1:${createHash('sha1').update(bytes).digest('base64')}`;
}

/** The raw links of one document, in order. */
function linksOf(html: string): string[] {
  const found: string[] = [];
  const ignore = (): void => {};
  const handler: TokenHandler = {
    onStartTag(token: Token.TagToken): void {
      const name = LINK_ATTRIBUTE[token.tagName];
      if (name === undefined) return;
      for (const attr of token.attrs) if (attr.name === name) found.push(attr.value);
    },
    onComment: ignore,
    onDoctype: ignore,
    onEndTag: ignore,
    onEof: ignore,
    onCharacter: ignore,
    onNullCharacter: ignore,
    onWhitespaceCharacter: ignore,
  };
  new Tokenizer({ sourceCodeLocationInfo: false }, handler).write(html, true);
  return found;
}

function writeRecord(fd: number, type: 'request' | 'response', uri: string, block: Buffer, extraHeaders: string): void {
  const head =
    `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:${randomUUID()}>\r\nWARC-Date: ${new Date().toISOString()}\r\n` +
    `WARC-Target-URI: ${uri}\r\n${extraHeaders}Content-Type: application/http; msgtype=${type}\r\n` +
    `WARC-Block-Digest: ${sha1(block)}\r\nContent-Length: ${block.length}\r\n\r\n`;
  writeSync(fd, gzipSync(Buffer.concat([Buffer.from(head, 'latin1'), block, Buffer.from('\r\n\r\n', 'latin1')])));
}

async function crawl(origin: string, warcPath: string): Promise<number> {
  const fd = openSync(warcPath, 'w');
  const client = new Client(origin, { pipelining: 1 });
  const host = new URL(origin).host;
  const seen = new Set<string>(['/']);
  const queue: string[] = ['/'];
  try {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const uri = origin + next;
      const headers = { 'user-agent': 'archiver-floor', 'accept-encoding': 'gzip' };
      const res = await client.request({ path: next, method: 'GET', headers });
      const body = Buffer.from(await res.body.arrayBuffer());
      let responseHead = `HTTP/1.1 ${res.statusCode}\r\n`;
      for (const [name, value] of Object.entries(res.headers)) responseHead += `${name}: ${String(value)}\r\n`;
      writeRecord(fd, 'response', uri, Buffer.concat([Buffer.from(`${responseHead}\r\n`, 'latin1'), body]), `WARC-Payload-Digest: ${sha1(body)}\r\n`);
      const requestHead = `GET ${next} HTTP/1.1\r\nHost: ${host}\r\nuser-agent: ${headers['user-agent']}\r\naccept-encoding: gzip\r\n\r\n`;
      writeRecord(fd, 'request', uri, Buffer.from(requestHead, 'latin1'), '');
      if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').startsWith('text/html')) continue;
      const html = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
      for (const raw of linksOf(html)) {
        let url: URL;
        try {
          url = new URL(raw, uri);
        } catch {
          continue;
        }
        const path = url.pathname + url.search;
        if (url.origin !== origin || seen.has(path)) continue;
        seen.add(path);
        queue.push(path);
      }
    }
  } finally {
    await client.close();
    closeSync(fd);
  }
  return seen.size;
}

const [origin, warcPath] = process.argv.slice(2);
if (origin === undefined || warcPath === undefined) {
  console.error('usage: floor-crawler ORIGIN WARC_PATH');
  process.exitCode = 2;
} else {
  console.error(`floor-crawler: ${await crawl(origin, warcPath)} URIs`);
}
