/**
 * A static site written to disk for real web servers (Python's http.server,
 * nginx) to serve: pages in nested folders linking to each other, a
 * stylesheet, images, and downloads large enough to be spilled to disk by
 * the fetcher, and a file whose name holds a '%' that begins no escape,
 * linked as it is named (as Boost's docs link `operator%.html`). Returns
 * every URL path a crawl from `/` must archive, as the URL gives it (that
 * file's as `%25`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface StaticSite {
  root: string;
  /** Paths (starting with `/`) reachable from `/`, directory indexes as `…/`. */
  paths: string[];
}

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

export async function writeStaticSite(root: string, pages = 40): Promise<StaticSite> {
  const paths = new Set<string>(['/']);
  const put = async (rel: string, body: string | Buffer): Promise<void> => {
    const file = path.join(root, ...rel.split('/').filter((s) => s !== ''));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, body);
  };
  await put('/static/site.css', 'body { font-family: serif; background: url(bg.png); }\n'.repeat(40));
  await put('/static/bg.png', bytes(3000, 7));
  paths.add('/static/site.css').add('/static/bg.png');
  // nginx refuses a request line with a bare '%' (400): the crawl must send it escaped.
  await put('/section0/rate%.html', '<!doctype html><html><head><title>Rate</title></head><body><p>100% of it</p></body></html>');
  paths.add('/section0/rate%25.html');
  const pagePath = (i: number): string => `/section${i % 5}/page${i}.html`;
  const links: string[] = [];
  for (let i = 0; i < pages; i++) {
    links.push(`<li><a href="${pagePath(i)}">Page ${i}</a></li>`);
    paths.add(pagePath(i));
  }
  await put('/index.html', `<!doctype html><html><head><title>Static site</title><link rel="stylesheet" href="/static/site.css"></head><body><ul>${links.join('')}</ul></body></html>`);
  for (let i = 0; i < pages; i++) {
    const image = `/images/figure${i}.png`;
    const download = i % 4 === 0 ? `/downloads/data${i}.bin` : null;
    paths.add(image);
    if (download) paths.add(download);
    const next = pagePath((i + 1) % pages);
    const text = `<p>${'Words on a page of a real static site. '.repeat(50 + i * 7)}</p>`;
    await put(
      pagePath(i),
      `<!doctype html><html><head><title>Page ${i}</title><link rel="stylesheet" href="../static/site.css"></head><body>` +
        `<h1>Page ${i}</h1><img src="..${image}" alt="figure">${text}<a href="${next}">next</a> <a href="../index.html">home</a>` +
        (download ? ` <a href="..${download}">data</a>` : '') +
        (i === 0 ? ' <a href="rate%.html">rate</a>' : '') +
        `</body></html>`,
    );
    await put(image, bytes(20_000 + i * 3000, i + 11));
    // 0.5–2.5 MB: well past the fetcher's in-memory limit.
    if (download) await put(download, bytes(500_000 + i * 50_000, i + 101));
  }
  paths.add('/index.html');
  return { root, paths: [...paths].sort() };
}
