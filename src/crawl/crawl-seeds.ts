/**
 * Seeds of a crawl that is running: those of the profile at its start,
 * those an operator adds (saved first, so a resumed crawl has them), and
 * those another node of the crawl recorded. Every path queues them the same
 * way: through the seen filter, with the crawl's other nodes told, so that
 * none of them ends the crawl while a seed reserved here is in no queue yet.
 */
import { seedUri, type CrawlUri } from '../core/crawl-uri.js';
import { isHttpUrl } from '../url/http-url.js';
import type { AddSeedsResult } from './crawl-options.js';
import type { CrawlParts } from './crawl-parts.js';

export type SeedParts = Pick<CrawlParts, 'backend' | 'job' | 'links' | 'scope' | 'stats'>;

/** Counted as seeds, run through the seen filter and queued when new; the new ones come back. A crawl of one process has no node to tell. */
export async function scheduleSeeds(p: SeedParts, urls: readonly string[]): Promise<CrawlUri[]> {
  for (const url of urls) if (!p.stats.seeds.has(url)) p.stats.seeds.set(url, { url, status: null, redirect: null });
  const { coordination } = p.backend;
  await coordination.seeding();
  try {
    return await p.links.scheduleSeeds(urls.map(seedUri));
  } finally {
    await coordination.seeded();
  }
}

/**
 * An operator's seeds, seen-checked: an absolute http(s) URL not seen before
 * is added (saved first; its host joins the scope when the profile names no
 * hosts); the others come back with the reason. `ending`: the crawl is
 * stopping or over, and takes none.
 */
export async function addSeeds(p: SeedParts, urls: readonly string[], at: number, ending: boolean): Promise<AddSeedsResult> {
  const rejected: AddSeedsResult['rejected'] = [];
  const candidates: string[] = [];
  for (const url of urls) {
    if (ending) rejected.push({ url, reason: 'the crawl is ending' });
    else if (!isHttpUrl(url)) rejected.push({ url, reason: 'not an absolute http(s) URL' });
    else if (candidates.includes(url)) rejected.push({ url, reason: 'given twice' });
    else candidates.push(url);
  }
  if (candidates.length === 0) return { added: [], rejected };
  await p.job.addSeeds(candidates, at);
  const added = await seedsFromOthers(p, candidates);
  const fresh = new Set(added.map((u) => u.url));
  for (const url of candidates) if (!fresh.has(url)) rejected.push({ url, reason: 'already seen' });
  return { added: [...fresh], rejected };
}

/** Seeds recorded already (here, or by another node of the crawl: a node's addSeeds, `archiver serve --store`): their hosts join the scope, and the shared seen filter queues each once. */
export async function seedsFromOthers(p: SeedParts, urls: readonly string[]): Promise<CrawlUri[]> {
  if (p.scope.hostsFromSeeds) for (const url of urls) p.scope.addHost(new URL(url).host);
  return scheduleSeeds(p, urls);
}
