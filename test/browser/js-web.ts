/**
 * A small JavaScript web on loopback for the browser-capture tests, on two
 * hosts (127.0.0.1 and 127.0.0.2, each on its own port), with every request
 * logged by the server — the judge of what the crawler did. Its pages
 * carry what only a browser finds: links rendered after a fetch() of JSON
 * (served gzipped), content and links loaded on scroll, a lazy image
 * (data-src + IntersectionObserver), a POST with a JSON body, a fetch of a
 * robots-disallowed path, an endless beacon, an image on the second host
 * inserted by script, one CSS every page links, and a page registering a
 * service worker.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { preciseClock } from '../../src/demo/request-log.js';

export interface Hit {
  host: string;
  method: string;
  path: string;
  body: string;
  startMs: number;
  /** When the response's end was handed to Node (the client cannot have had it earlier). */
  endMs: number;
  /** Requests to this host in flight when this one started, itself included. */
  inFlightAtStart: number;
  userAgent: string;
}

export interface JsWeb {
  a: string;
  b: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** Links only the rendered pages have, as paths of host a. */
export const JS_ONLY_PATHS = ['/item/1', '/item/2', '/item/3', '/more/1', '/more/2', '/more/3', '/found/widget'];
/** Subresources only the rendered pages request, as paths of host a. */
export const JS_ONLY_RESOURCES = ['/api/items.json', '/api/more?page=1', '/api/more?page=2', '/api/more?page=3', '/img/lazy.png'];

/** Requests the beacon page makes at once as it loads: more than the 10 listeners Node lets a signal have before it warns. */
export const BURST = 12;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');

function page(title: string, body: string, script = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/style.css"></head><body><h1>${title}</h1>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;
}

function routesOf(b: string): Record<string, (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void> {
  const html = (text: string) => (_q: http.IncomingMessage, _b: string, res: http.ServerResponse) => void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(text);
  const json = (value: unknown, gzip = false) => (_q: http.IncomingMessage, _b: string, res: http.ServerResponse) => {
    const raw = Buffer.from(JSON.stringify(value));
    if (gzip) res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipSync(raw));
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end(raw);
  };
  const more = (n: number) => json({ links: [`/more/${n}`], last: n === 3 });
  return {
    '/robots.txt': (_q, _b, res) => void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'),
    '/style.css': (_q, _b, res) => void res.writeHead(200, { 'Content-Type': 'text/css' }).end('body { font-family: sans-serif; } .tall { height: 1400px; }'),
    '/': html(
      page(
        'Home',
        '<ul id="items"></ul><a href="/scroll">scroll</a> <a href="/post">post</a> <a href="/sw">sw</a> <a href="/beacon">beacon</a>',
        `fetch('/api/items.json').then((r) => r.json()).then((items) => {
           const ul = document.getElementById('items');
           for (const it of items) { const li = document.createElement('li'); li.innerHTML = '<a href="' + it.href + '">' + it.name + '</a>'; ul.append(li); }
         });
         fetch('/private/secret.json').catch(() => {});
         const img = new Image(); img.src = '${b}/logo.png'; document.body.append(img);`,
      ),
    ),
    '/api/items.json': json([{ href: '/item/1', name: 'Item one' }, { href: '/item/2', name: 'Item two' }, { href: '/item/3', name: 'Item three' }], true),
    '/item/1': html(page('Item one', '<p>one</p>')),
    '/item/2': html(page('Item two', '<p>two</p>')),
    '/item/3': html(page('Item three', '<p>three</p>')),
    '/scroll': html(
      page(
        'Scroll',
        '<div class="tall">top</div><ul id="more"></ul><div id="end">end</div><div class="tall"></div><img id="lazy" data-src="/img/lazy.png" alt="lazy">',
        `let next = 1, busy = false;
         const list = document.getElementById('more');
         const load = () => {
           if (busy || next > 3) return;
           busy = true;
           fetch('/api/more?page=' + next).then((r) => r.json()).then((m) => {
             for (const href of m.links) { const li = document.createElement('li'); li.innerHTML = '<a href="' + href + '">' + href + '</a><div class="tall"></div>'; list.append(li); }
             next++; busy = false;
           });
         };
         new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) load(); }).observe(document.getElementById('end'));
         window.addEventListener('scroll', () => { if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 300) load(); });
         const lazy = document.getElementById('lazy');
         new IntersectionObserver((es, o) => { if (es[0].isIntersecting) { lazy.src = lazy.dataset.src; o.disconnect(); } }).observe(lazy);`,
      ),
    ),
    '/api/more?page=1': more(1),
    '/api/more?page=2': more(2),
    '/api/more?page=3': more(3),
    '/more/1': html(page('More one', '<p>1</p>')),
    '/more/2': html(page('More two', '<p>2</p>')),
    '/more/3': html(page('More three', '<p>3</p>')),
    '/img/lazy.png': (_q, _b, res) => void res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG),
    '/post': html(
      page(
        'Post',
        '<div id="results"></div>',
        `fetch('/api/search', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ q: 'widget' }) })
           .then((r) => r.json()).then((res) => { document.getElementById('results').innerHTML = '<a href="' + res.href + '">' + res.name + '</a>'; });`,
      ),
    ),
    '/api/search': (req, body, res) => {
      let q = '';
      try {
        q = String((JSON.parse(body) as { q?: unknown }).q ?? '');
      } catch {
        q = '';
      }
      if (req.method !== 'POST' || q === '') return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end('POST a JSON {q}');
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ href: `/found/${q}`, name: `Found ${q}` }));
    },
    '/found/widget': html(page('Found widget', '<p>widget</p>')),
    '/sw': html(page('Service worker', '<p id="sw">registering</p>', `if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').then(() => { document.getElementById('sw').textContent = 'registered'; }, () => { document.getElementById('sw').textContent = 'refused'; });`)),
    '/sw.js': (_q, _b, res) => void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end("self.addEventListener('fetch', () => {});"),
    // Not linked from anywhere: a page whose data never comes (the server holds /hang open).
    '/waits': html(page('Waits', '<p id="w">waiting</p>', `fetch('/hang').then(() => { document.getElementById('w').textContent = 'came'; }).catch(() => {});`)),
    // A dozen requests at once, then one every 120 ms for ever: the render waits on many subrequests together.
    '/beacon': html(page('Beacon', '<p>polling</p>', `for (let i = 0; i < ${BURST}; i++) fetch('/ping?burst=' + i).catch(() => {}); setInterval(() => { fetch('/ping?t=' + Date.now()).catch(() => {}); }, 120);`)),
  };
}

async function listen(host: string, handle: http.RequestListener): Promise<{ origin: string; server: http.Server }> {
  const server = http.createServer(handle);
  await new Promise<void>((r) => server.listen(0, host, r));
  return { origin: `http://${host}:${(server.address() as AddressInfo).port}`, server };
}

export async function startJsWeb(): Promise<JsWeb> {
  const hits: Hit[] = [];
  const inFlight = new Map<string, number>();
  const servers: http.Server[] = [];
  let routes: ReturnType<typeof routesOf> = {};
  const handler: http.RequestListener = (req, res) => {
    const host = req.headers.host ?? '';
    const n = (inFlight.get(host) ?? 0) + 1;
    inFlight.set(host, n);
    const hit: Hit = { host, method: req.method ?? 'GET', path: req.url ?? '/', body: '', startMs: preciseClock.now(), endMs: 0, inFlightAtStart: n, userAgent: req.headers['user-agent'] ?? '' };
    hits.push(hit);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hit.body = Buffer.concat(chunks).toString('utf8');
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => {
        hit.endMs = preciseClock.now();
        inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
        return end(...args);
      }) as typeof res.end;
      const onB = host === bHost;
      if (onB && hit.path === '/robots.txt') return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('none');
      if (onB && hit.path === '/logo.png') return void res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
      if (!onB && hit.path.startsWith('/ping?')) return void res.writeHead(204).end();
      if (!onB && hit.path === '/hang') return; // Answered never; the socket closes with the server.
      const route = onB ? undefined : routes[hit.path];
      if (route) route(req, hit.body, res);
      else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
    });
  };
  const a = await listen('127.0.0.1', handler);
  const b = await listen('127.0.0.2', handler);
  servers.push(a.server, b.server);
  const bHost = new URL(b.origin).host;
  routes = routesOf(b.origin);
  return {
    a: a.origin,
    b: b.origin,
    hits,
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
