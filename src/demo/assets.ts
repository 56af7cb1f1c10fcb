/**
 * The non-HTML resources of a fixture host: GIF images, the two stylesheets
 * (one @imports the other and both reference images with url()), a script
 * and robots.txt. Images are real, valid GIFs — a 1×1 picture with a colour
 * of its own and a comment block of filler — so each has distinct bytes (no
 * accidental identical-payload revisits) and a size like a small real image.
 */
import type { PageLinks } from './html.js';
import type { Rng } from './random.js';

/** A valid 1×1 GIF89a of roughly `approxBytes` bytes, distinct per `rng` state. */
export function makeGif(rng: Rng, approxBytes: number): Buffer {
  const parts: Buffer[] = [];
  // Header, logical screen 1×1, a global colour table of two entries.
  parts.push(Buffer.from('GIF89a', 'latin1'));
  parts.push(Buffer.from([1, 0, 1, 0, 0x80, 0, 0]));
  parts.push(Buffer.from([rng.int(0, 255), rng.int(0, 255), rng.int(0, 255), 0, 0, 0]));
  // Comment extension: sub-blocks of at most 255 bytes, then a zero terminator.
  parts.push(Buffer.from([0x21, 0xfe]));
  // Filler from a cheap xorshift seeded once: the benchmark web has megabytes
  // of images and the shared generator would make start-up slow.
  const fillerBytes = Math.max(16, approxBytes - 40);
  const blocks = Buffer.alloc(fillerBytes + Math.ceil(fillerBytes / 255));
  let x = Math.floor(rng.next() * 0xffffffff) | 1;
  let at = 0;
  for (let remaining = fillerBytes; remaining > 0; remaining -= 255) {
    const size = Math.min(255, remaining);
    blocks[at++] = size;
    for (let i = 0; i < size; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      blocks[at++] = 0x61 + ((x >>> 0) % 26); // a–z
    }
  }
  parts.push(blocks);
  parts.push(Buffer.from([0]));
  // Image descriptor 1×1 at (0,0), no local table; LZW data for one pixel of colour 0; trailer.
  parts.push(Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]));
  parts.push(Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]));
  return Buffer.concat(parts);
}

/** The main stylesheet: @imports base.css and uses two images via url(). */
export function mainCss(hostIndex: number, links: PageLinks): string {
  return [
    `/* site.css for fixture host ${hostIndex} */`,
    `@import url("${links.href('base.css', 'embed')}");`,
    `body { background: #fdfcf8 url("${links.href('../img/background.gif', 'embed')}") repeat; margin: 0 auto; max-width: 46em; }`,
    `header .logo { background-image: url(${links.href('/img/logo-small.gif', 'embed')}); width: 120px; height: 40px; }`,
    `article p { line-height: 1.5; }`,
    `a[href^="http"]::after { content: " ↗"; }`,
    '',
  ].join('\n');
}

/** The imported stylesheet: one more image reference, a quoted one. */
export function baseCss(hostIndex: number, links: PageLinks): string {
  return [
    `/* base.css for fixture host ${hostIndex}, imported by site.css */`,
    `html { font-family: Georgia, serif; color: #222; }`,
    `footer { border-top: 1px solid #ccc; background: url('${links.href('/img/footer-texture.gif', 'embed')}'); }`,
    '',
  ].join('\n');
}

/** A small script; it builds a URL string at run time, which no crawler is expected to follow. */
export function appJs(hostIndex: number): string {
  return [
    `// app.js for fixture host ${hostIndex}`,
    `(function () {`,
    `  var year = document.getElementById('year');`,
    `  if (year) year.textContent = String(new Date().getFullYear());`,
    `  var hidden = '/scripted/' + 'only-by-javascript.html';`,
    `  window.archiverDemo = { hidden: hidden, host: ${hostIndex} };`,
    `})();`,
    '',
  ].join('\n');
}

/** robots.txt: /private/ is off limits to everyone, optionally with a Crawl-delay. */
export function robotsTxt(crawlDelaySec: number | undefined): string {
  const lines = ['# robots.txt of an archiver fixture host', 'User-agent: *', 'Disallow: /private/'];
  if (crawlDelaySec !== undefined) lines.push(`Crawl-delay: ${crawlDelaySec}`);
  lines.push('', 'User-agent: BadBot', 'Disallow: /', '');
  return lines.join('\n');
}
