/** The HTML pages of a generated fixture web (src/demo/site-generator.ts), as text: what scanner tests read page by page. */
import { generateWeb } from '../../src/demo/site-generator.js';

export function fixtureHtmlPages(seed: number, pagesPerHost = 30): string[] {
  const web = generateWeb({ addresses: ['127.0.0.2', '127.0.0.3'], port: 8080, pagesPerHost, seed });
  const pages: string[] = [];
  for (const host of web.hosts) {
    for (const [, res] of host.resources) {
      const type = res.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
      if (type.startsWith('text/html')) pages.push(res.body.toString('utf8'));
    }
  }
  return pages;
}
