/**
 * A measuring stick, not a crawler anyone should use: the least a crawler
 * written for Node on the project's own packages does for a page, so that
 * the real-site bench (real-sites.ts) can show what a fresh Node process
 * pays at the minimum, beside wget and archiver. It fetches over one
 * keep-alive connection with undici's dispatch API, asking for gzip as
 * archiver does; inflates HTML and reads links with parse5's Tokenizer
 * (href and src of a, link, img, script, iframe, source, and a meta
 * refresh's URL, same origin only);
 * and writes a request and a response record per URI, each a gzip member
 * with its SHA-1 digests, to one WARC file, a gzipped payload stored at
 * level 0 as archiver stores it. It runs with archiver's V8 settings, and
 * real-sites.ts starts it as archiver's launcher starts node.
 *
 * Everything archiver does beyond that is left out: robots.txt, politeness,
 * the crawl state on disk and resume, page text, metadata records, the
 * capture journal, crawl.log, the CDXJ index, the WACZ, a second thread.
 * The WARC headers are written by hand, the cheapest way (archiver's
 * writer, and warcio's, do more). One thread, one isolate: one JIT warm-up.
 *
 *   node dist/bench/floor-crawler.js http://127.0.0.1:8080 out.warc.gz
 *
 * Prints the URIs it fetched on stderr, and writes `out.warc.gz.json`:
 * `{ "uris": N, "tokenizerCpuSecs": S }`, the CPU its HTML tokenizing took
 * (real-sites.ts reports it beside wget's whole crawl). Loopback only, as
 * every bench.
 */
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Tokenizer, type Token, type TokenHandler } from 'parse5';
import type { Client as UndiciClient, Dispatcher } from 'undici';

// archiver's own V8 settings (src/cli/bin.ts), set before undici loads: llhttp stays in baseline code,
// and only code that stays hot is optimised. Without them this floor paid ~0.3 s more on the PostgreSQL docs.
setFlagsFromString('--liftoff-only');
setFlagsFromString('--interrupt-budget=450000');
// undici's Client from its own module, as archiver takes its Agent: the package's index loads far more.
const Client = createRequire(import.meta.url)('undici/lib/dispatcher/client.js') as typeof UndiciClient;

/** The attribute holding a link, by tag name. */
const LINK_ATTRIBUTE: Readonly<Record<string, string>> = { a: 'href', link: 'href', img: 'src', script: 'src', iframe: 'src', source: 'src' };

function sha1(bytes: Uint8Array): string {
  return `sha1:${createHash('sha1').update(bytes).digest('base64')}`;
}

let found: string[] = [];
const ignore = (): void => {};
const handler: TokenHandler = {
  onStartTag(token: Token.TagToken): void {
    if (token.tagName === 'meta') {
      refreshOf(token);
      return;
    }
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

/** A meta refresh's URL (`<meta http-equiv="refresh" content="0;url=api/index.html">`, the OpenJDK docs' front page). */
function refreshOf(token: Token.TagToken): void {
  let refresh = false;
  let content = '';
  for (const attr of token.attrs) {
    if (attr.name === 'http-equiv') refresh = attr.value.toLowerCase() === 'refresh';
    else if (attr.name === 'content') content = attr.value;
  }
  const url = refresh ? /url\s*=\s*['"]?([^'"]+)/i.exec(content)?.[1] : undefined;
  if (url !== undefined) found.push(url.trim());
}

/**
 * CPU seconds (all of the process's threads, so V8's compiles of the
 * tokenizer's code too) spent in parse5's Tokenizer: the share of a crawl
 * that reading HTML with the package the brief names costs at the least.
 */
let tokenizerCpuSecs = 0;

/** The raw links of one document, in order. */
function linksOf(html: string): string[] {
  found = [];
  const before = process.cpuUsage();
  new Tokenizer({ sourceCodeLocationInfo: false }, handler).write(html, true);
  const spent = process.cpuUsage(before);
  tokenizerCpuSecs += (spent.user + spent.system) / 1e6;
  return found;
}

/**
 * One record as one gzip member. `level` 0 for a response whose payload is
 * gzip already, as archiver stores it (src/writer/compressed-payload.ts):
 * deflating gzip again buys nothing.
 */
function writeRecord(fd: number, type: 'request' | 'response', uri: string, block: Buffer, extraHeaders: string, level = 6): void {
  const head =
    `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:${randomUUID()}>\r\nWARC-Date: ${new Date().toISOString()}\r\n` +
    `WARC-Target-URI: ${uri}\r\n${extraHeaders}Content-Type: application/http; msgtype=${type}\r\n` +
    `WARC-Block-Digest: ${sha1(block)}\r\nContent-Length: ${block.length}\r\n\r\n`;
  writeSync(fd, gzipSync(Buffer.concat([Buffer.from(head, 'latin1'), block, Buffer.from('\r\n\r\n', 'latin1')]), { level }));
}

interface Response {
  status: number;
  /** Header names and values as sent, in order. */
  raw: Buffer[];
  body: Buffer;
}

/** One GET through undici's dispatch API, as archiver's fetcher makes it (src/fetch/fetcher.ts): no stream, no body mixin. */
function get(client: UndiciClient, path: string, headers: string[]): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let raw: Buffer[] = [];
    const handler: Dispatcher.DispatchHandler = {
      onConnect: () => {},
      onError: reject,
      onHeaders: (statusCode, rawHeaders) => {
        status = statusCode;
        raw = rawHeaders as Buffer[];
        return true;
      },
      onData: (chunk) => {
        chunks.push(chunk);
        return true;
      },
      onComplete: () => resolve({ status, raw, body: Buffer.concat(chunks) }),
    };
    client.dispatch({ path, method: 'GET', headers }, handler);
  });
}

async function crawl(origin: string, warcPath: string): Promise<number> {
  const fd = openSync(warcPath, 'w');
  const client = new Client(origin);
  const host = new URL(origin).host;
  const seen = new Set<string>(['/']);
  const queue: string[] = ['/'];
  const headers = ['user-agent', 'archiver-floor', 'accept-encoding', 'gzip'];
  try {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const uri = origin + next;
      const res = await get(client, next, headers);
      let responseHead = `HTTP/1.1 ${res.status}\r\n`;
      let type = '';
      let encoding = '';
      for (let i = 0; i + 1 < res.raw.length; i += 2) {
        const name = res.raw[i]!.toString('latin1');
        const value = res.raw[i + 1]!.toString('latin1');
        responseHead += `${name}: ${value}\r\n`;
        const lower = name.toLowerCase();
        if (lower === 'content-type') type = value;
        else if (lower === 'content-encoding') encoding = value;
      }
      const gzipped = encoding === 'gzip';
      writeRecord(fd, 'response', uri, Buffer.concat([Buffer.from(`${responseHead}\r\n`, 'latin1'), res.body]), `WARC-Payload-Digest: ${sha1(res.body)}\r\n`, gzipped ? 0 : 6);
      const requestHead = `GET ${next} HTTP/1.1\r\nHost: ${host}\r\nuser-agent: archiver-floor\r\naccept-encoding: gzip\r\n\r\n`;
      writeRecord(fd, 'request', uri, Buffer.from(requestHead, 'latin1'), '');
      if (res.status !== 200 || !type.startsWith('text/html')) continue;
      const html = (gzipped ? gunzipSync(res.body) : res.body).toString('utf8');
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
  const uris = await crawl(origin, warcPath);
  writeFileSync(`${warcPath}.json`, JSON.stringify({ uris, tokenizerCpuSecs }));
  console.error(`floor-crawler: ${uris} URIs, ${tokenizerCpuSecs.toFixed(2)} s of CPU in parse5's Tokenizer`);
}
