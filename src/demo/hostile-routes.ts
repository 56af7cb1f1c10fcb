/**
 * The routes of the hostile web (hostile-web.ts), one per misbehaviour, and
 * the robots.txt each kind of host answers with. Every handler gets the raw
 * request and response; some bypass HTTP framing and write to the socket
 * directly (trickled headers), or destroy it mid-body (reset). Handlers that
 * never finish clean their timers up when the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { BIG5_PAGE, GBK_PAGE } from './hostile-encodings.js';

/** What a host's /robots.txt does. */
export type RobotsBehaviour = 'normal' | 'timeout' | 'huge' | 'redirect';

export interface RouteContext {
  /** Bytes of the decoded gzip bomb (the compressed body is ~1/1000 of it). */
  bombDecodedBytes: number;
  /** Cache for bodies that are costly to build (the bomb), per server. */
  cache: Map<string, Buffer>;
  /** Registers a timer to clear when the server closes. */
  track(timer: NodeJS.Timeout): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RouteContext) => void;

/** Trickle interval of the slow routes: fast enough to beat any idle timeout. */
const TRICKLE_MS = 50;
/** Size of the robots.txt of a 'huge' host: 10 MB (RFC 9309 lets crawlers stop at 500 KiB). */
export const HUGE_ROBOTS_BYTES = 10 * 1024 * 1024;

export const ROUTES: ReadonlyArray<readonly [prefix: string, handler: Handler, what: string]> = [
  ['/slow-headers', slowHeaders, 'status line, then one header byte every 50 ms, forever'],
  ['/slow-body', slowBody, 'headers at once, then one body byte every 50 ms, forever'],
  ['/reset', resetMidBody, 'Content-Length 200000, 64 KiB sent, then a TCP reset'],
  ['/redirect/chain/', redirectChain, 'endless chain of 302s'],
  ['/redirect/loop/', redirectLoop, 'a → b → a'],
  ['/trap/calendar/', calendarTrap, 'month pages whose relative links nest deeper forever'],
  ['/trap/day', dayTrap, 'an infinite calendar of days (query links; only maxHops ends it)'],
  ['/trap/repeat/', repeatTrap, 'relative link a/b/ → /a/b/a/b/a/b/…'],
  ['/trap/query', queryTrap, 'a query string that doubles on every link'],
  ['/huge', endlessBody, 'an endless body, streamed with back-pressure'],
  ['/gzip-bomb', gzipBomb, 'a small gzip body that inflates to hundreds of MB'],
  ['/garbage', garbage, 'binary noise served as text/html'],
  ['/many-links', manyLinks, 'HTML with ?n= links (default 1 000 000)'],
  ['/bad-urls', badUrls, 'invalid, relative-to-nothing and IDN links'],
  ['/gbk', (_q, res) => send(res, 200, 'text/html; charset=GBK', GBK_PAGE), 'a GBK page (charset in Content-Type) with Chinese links'],
  ['/big5', (_q, res) => send(res, 200, 'text/html', BIG5_PAGE), 'a Big5 page (charset in <meta> only) with Chinese links'],
  ['/backoff/429', (_q, res) => send(res, 429, 'text/plain', 'slow down\n', { 'Retry-After': '1' }), '429 with Retry-After: 1'],
  ['/backoff/503', retryAfterDate, '503 with Retry-After as an HTTP-date ~2 s ahead'],
  ['/steady/', steady, 'a chain of 30 ordinary pages, 20 ms each'],
  ['/ok/', okPage, 'an ordinary page (links to /secret/ on the same host)'],
  ['/robots-real.txt', (_q, res) => send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /secret/\n'), 'where a redirecting robots.txt points'],
];

export function route(path: string): Handler | null {
  for (const [prefix, handler] of ROUTES) if (path === prefix || path.startsWith(prefix)) return handler;
  return null;
}

export function indexPage(): string {
  const items = ROUTES.map(([p, , what]) => `<li><a href="${p.endsWith('/') ? p + '0' : p}">${p}</a> — ${what}</li>`).join('\n');
  return `<!doctype html><html><head><title>The hostile web</title></head><body><h1>The hostile web</h1><ul>\n${items}\n</ul></body></html>\n`;
}

export function robotsTxt(behaviour: RobotsBehaviour, res: ServerResponse): void {
  switch (behaviour) {
    case 'normal':
      send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /secret/\n');
      return;
    case 'timeout':
      return; // headers never come; the client gives up
    case 'redirect':
      send(res, 301, 'text/plain', 'moved\n', { Location: '/robots-real.txt' });
      return;
    case 'huge': {
      // The rule that matters comes first; a "Disallow: /" far past 500 KiB must be cut off, not obeyed.
      const head = 'User-agent: *\nDisallow: /secret/\n';
      const tail = 'Disallow: /\n';
      const filler = '# filler filler filler filler filler filler filler filler filler\n';
      const lines = Math.floor((HUGE_ROBOTS_BYTES - head.length - tail.length) / filler.length);
      send(res, 200, 'text/plain', head + filler.repeat(lines) + tail);
    }
  }
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(bytes.length), ...extra });
  res.end(bytes);
}

function page(title: string, links: readonly string[]): string {
  const items = links.map((l) => `<a href="${l}">${l}</a>`).join('\n');
  return `<!doctype html><html><head><title>${title}</title></head><body>\n${items}\n</body></html>\n`;
}

function slowHeaders(req: IncomingMessage): void {
  const socket = req.socket;
  socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
  const timer = setInterval(() => socket.write('a'), TRICKLE_MS);
  socket.once('close', () => clearInterval(timer));
}

function slowBody(_req: IncomingMessage, res: ServerResponse, _url: URL, ctx: RouteContext): void {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.write('<!doctype html><html><body><a href="/ok/slow">ok</a>');
  const timer = setInterval(() => res.write(' '), TRICKLE_MS);
  ctx.track(timer);
  res.once('close', () => clearInterval(timer));
}

function resetMidBody(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': '200000' });
  res.write(`<!doctype html><html><body><a href="/ok/after-reset">next</a>${' '.repeat(64 * 1024)}`, () => {
    req.socket.resetAndDestroy();
  });
}

function redirectChain(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const n = Number(url.pathname.slice('/redirect/chain/'.length)) || 0;
  send(res, 302, 'text/plain', 'again\n', { Location: `/redirect/chain/${n + 1}` });
}

function redirectLoop(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const other = url.pathname.endsWith('/a') ? 'b' : 'a';
  send(res, 302, 'text/plain', 'loop\n', { Location: `/redirect/loop/${other}` });
}

/** /trap/calendar/…/2024/01/ → a page for that month whose "next" link is relative: nesting grows by two segments per hop. */
function calendarTrap(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const parts = url.pathname.split('/').filter(Boolean);
  const year = Number(parts.at(-2)) || 2024;
  const month = Number(parts.at(-1)) || 1;
  const next = month === 12 ? `${year + 1}/01/` : `${year}/${String(month + 1).padStart(2, '0')}/`;
  send(res, 200, 'text/html', page(`${year}-${month}`, [next]));
}

function dayTrap(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const d = Number(url.searchParams.get('d') ?? '0') || 0;
  send(res, 200, 'text/html', page(`day ${d}`, [`/trap/day?d=${d + 1}`, `/trap/day?d=${d - 1}`]));
}

function repeatTrap(_req: IncomingMessage, res: ServerResponse): void {
  send(res, 200, 'text/html', page('repeat', ['a/b/']));
}

function queryTrap(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const q = url.searchParams.get('q') ?? 'x';
  send(res, 200, 'text/html', page('query', [`/trap/query?q=${q}${q}`]));
}

function endlessBody(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

function gzipBomb(_req: IncomingMessage, res: ServerResponse, _url: URL, ctx: RouteContext): void {
  let body = ctx.cache.get('bomb');
  if (body === undefined) {
    const html = Buffer.alloc(ctx.bombDecodedBytes, 0x20);
    Buffer.from('<!doctype html><html><body><a href="/ok/bomb">ok</a>').copy(html);
    body = gzipSync(html, { level: 9 });
    ctx.cache.set('bomb', body);
  }
  send(res, 200, 'text/html', body, { 'Content-Encoding': 'gzip' });
}

function garbage(_req: IncomingMessage, res: ServerResponse): void {
  // A fixed xorshift stream: the same noise every run.
  const bytes = Buffer.alloc(256 * 1024);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  send(res, 200, 'text/html', bytes);
}

function manyLinks(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const n = Math.min(Number(url.searchParams.get('n') ?? '1000000') || 0, 5_000_000);
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.write('<!doctype html><html><body>\n');
  let i = 0;
  // Generated in slices with back-pressure: the server must not hold the whole page either.
  const pump = (): void => {
    while (i < n) {
      const end = Math.min(n, i + 2000);
      let s = '';
      for (; i < end; i++) s += `<a href="/sink/${i}">${i}</a>\n`;
      if (!res.write(s)) return;
    }
    res.end('</body></html>\n');
  };
  res.on('drain', pump);
  pump();
}

function badUrls(req: IncomingMessage, res: ServerResponse): void {
  const port = req.socket.localPort;
  const links = [
    'http://[::1', // unterminated IPv6
    'http://exa mple.org/', // space in host
    'http://%zz/', // bad escape in host
    'https://', // no host
    'http://999.999.999.999/', // not an IPv4
    'http://a..b/', // empty label
    '::::', // relative, but to what
    '../../../../../../../above-root', // resolves to /above-root
    '?only-query',
    '\u0000nul',
    'javascript:alert(1)',
    'mailto:someone@example.org',
    `http://bücher.hostile.test:${port}/ok/idn`, // IDN host: fetched as xn--bcher-kva
    '/ok/päth with spaces', // percent-encoded by the resolver
    `http://nxdomain.hostile.test:${port}/ok/dns`, // a host with no DNS entry
  ];
  // A <base> that cannot serve as a base leaves the page URL in charge.
  const body = `<!doctype html><html><head><base href="mailto:nobody"><title>bad urls</title></head><body>\n${links
    .map((l) => `<a href="${l.replace(/"/g, '&quot;')}">x</a>`)
    .join('\n')}\n<img src="http://[broken">\n</body></html>\n`;
  send(res, 200, 'text/html', body);
}

function retryAfterDate(_req: IncomingMessage, res: ServerResponse): void {
  const when = new Date(Date.now() + 2000).toUTCString();
  send(res, 503, 'text/plain', 'maintenance\n', { 'Retry-After': when });
}

function steady(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RouteContext): void {
  const n = Number(url.pathname.slice('/steady/'.length)) || 0;
  const links = n < 30 ? [`/steady/${n + 1}`] : [];
  ctx.track(setTimeout(() => send(res, 200, 'text/html', page(`steady ${n}`, links)), 20));
}

function okPage(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  send(res, 200, 'text/html', page(`ok ${url.pathname}`, ['/secret/1']));
}
