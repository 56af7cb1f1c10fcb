/**
 * A page thread's first pages, before it takes real ones: a made-up
 * document, gzip-encoded as a server sends it, through the whole of a
 * capture's page work (content decoding, parse5's tokenizer and our scan,
 * link resolution, three WARC records, the reply), whose result is dropped.
 *
 * A new thread runs every function in V8's interpreter until it has
 * gathered enough feedback to compile it: the thread's first real pages
 * each took several times the usual while a crawl's workers all waited on
 * them (70–80 ms with no request made on the PostgreSQL docs). Done as the
 * thread starts, that is paid while the main thread still works the pages
 * itself (page-thread.ts), and the thread takes its first ones warm.
 */
import { gzipSync } from 'node:zlib';
import { sha1PayloadDigest } from '../fetch/payload-digest.js';
import { pageReply, type PageRequest } from './page-work.js';

/** How many times the made-up page is worked: enough for the hot functions to leave the interpreter. */
const ROUNDS = 3;

const ORIGIN = 'http://warm-up.invalid';

/** A documentation page in miniature: head links, a table of contents, text with references, a script, an image. */
function document(): string {
  const toc = Array.from({ length: 40 }, (_, i) => `<li><a href="section-${i}.html" title="Section ${i}">${i}. Section &amp; topic ${i}</a></li>`).join('\n');
  const text = Array.from({ length: 30 }, (_, i) => `<p>Paragraph ${i}: the <code>value</code> is &lt;${i}&gt; &mdash; see <a href="#s${i}">below</a>, <em>or</em> <a href="../other/page-${i}.html?x=${i}">elsewhere</a>.</p>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Warm-up page</title>
<link rel="stylesheet" href="style.css" type="text/css"><meta name="viewport" content="width=device-width">
<script src="script.js"></script><style>body { background: url(bg.png) }</style></head>
<body><div class="navheader"><table><tr><td><a accesskey="p" href="prev.html">Prev</a></td><td><a href="next.html">Next</a></td></tr></table></div>
<h1 id="top">Warm-up</h1><img src="logo.png" alt="logo" width="10" height="10">
<ul class="toc">
${toc}
</ul>
${text}
<script>var x = "<a href='not-a-link.html'>";</script>
</body></html>`;
}

function request(): PageRequest {
  const body = gzipSync(Buffer.from(document(), 'utf8'));
  const url = `${ORIGIN}/docs/page.html`;
  return {
    exchange: {
      url,
      requestHead: Buffer.from(`GET /docs/page.html HTTP/1.1\r\nHost: warm-up.invalid\r\nAccept-Encoding: gzip\r\n\r\n`, 'latin1'),
      status: 200,
      statusText: 'OK',
      httpVersion: '1.1',
      responseHeaders: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Content-Encoding', 'gzip'],
        ['Content-Length', String(body.length)],
      ],
      truncated: null,
      payloadDigest: sha1PayloadDigest(body),
      ip: '127.0.0.1',
      startedAt: new Date(0),
      durationMs: 1,
    },
    body,
    hopPath: 'L',
    via: `${ORIGIN}/docs/`,
    version: '1.1',
    extraction: { mime: 'text/html', obeyMetaRobots: true, maxOutlinks: 6000 },
  };
}

/** Works the made-up page ROUNDS times; its results go nowhere. */
export async function warmUpPageWork(): Promise<void> {
  // The body travels by value: pageReply only reads it, so one request serves every round.
  const req = request();
  for (let n = 0; n < ROUNDS; n++) await pageReply(req);
}
