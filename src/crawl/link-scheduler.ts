/**
 * Turns extracted links into scheduled URIs: scope decision, the seen filter
 * (one batched put-if-absent per page), then the frontier. Scope refusals are
 * logged to crawl.log once per URL (a second seen filter remembers which).
 * Links to a closed host, or into an override whose budget is spent, are
 * disposed of at once (logged once each, never queued).
 */
import { childUri, type CrawlUri, type Hop } from '../core/crawl-uri.js';
import type { Frontier } from '../frontier/frontier.js';
import { hostPortOf } from '../url/hosts.js';
import type { HostHealth } from '../politeness/host-health.js';
import { BUDGET_EXCEEDED, BUDGET_EXCEEDED_STATUS, type Budgets } from '../overrides/budgets.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import { canonicalizeForSeen } from '../url/canonicalize.js';
import { KnownLinks } from './known-links.js';
import type { Scope } from './scope.js';
import type { SitemapsMode } from '../config/profile.js';
import { guessedSitemapUrl, namesSitemap, SITEMAP_FROM_SEED, SITEMAP_GUESSED } from '../sitemap/sitemap-uri.js';
import { FOCUS_RESTRICTED, FOCUS_RESTRICTED_STATUS } from '../focus/annotations.js';

/**
 * Where a topic-focused crawl (src/focus/) puts the links of one page: it
 * sets each child's priority, and says whether it is followed
 * (`restricted`: no, logged -5000 focusRestricted; `forced`: queued
 * whatever the seen filter says).
 */
export interface LinkFocus {
  place(child: CrawlUri, link: DiscoveredLink): 'follow' | 'restricted' | 'forced';
  /** The children the seen filter let through (placed `follow`), as queued. */
  queued?(children: readonly CrawlUri[]): void;
}

export interface DiscoveredLink {
  url: string;
  hop: Hop;
  context: string;
  /** A sitemap's `<lastmod>` for the URL, and the priority it gives (sitemap-outlinks.ts). */
  lastmod?: string;
  priority?: number;
  /** A focused crawl's terms of a hyperlink's anchor, of the text around it and of its URL, space-separated (src/focus/page-terms.ts). */
  anchorTerms?: string;
  aroundTerms?: string;
  urlTerms?: string;
}

export interface LinkSchedulerDeps {
  scope: Scope;
  seen: UriUniqFilter;
  /** Remembers which refused URLs were already logged. */
  refusedSeen: UriUniqFilter;
  frontier: Frontier;
  maxRedirects: number;
  /** scope.sitemaps: seeds named as sitemaps are read as such (unless `off`), `/sitemap.xml` of each seed host is tried (`seeds`). */
  sitemaps?: SitemapsMode;
  /** Called once per refused URL with its crawl.log status and the rule that refused it. */
  onRefused(uri: CrawlUri, status: number, reason: string): void;
  /** Hosts closed after their robots.txt or their server failed: their URLs are disposed of at once. */
  health?: HostHealth;
  /** The overrides' budgets: a link into a spent one is disposed of like one to a closed host. */
  budgets?: Budgets;
  /** Called once per URL of a closed host (or a spent budget), with its crawl.log status and annotation. */
  onClosedHost?(uri: CrawlUri, status: number, annotation: string): void;
  /** A focused crawl's seeds, as queued (their priority). */
  focusSeed?(seed: CrawlUri): CrawlUri;
  /**
   * Told the link URLs of each page that went through the seen filter (and
   * whose repeats are skipped from then on): the page thread is told them
   * too, and stops sending them back (page-work.ts pageReply).
   */
  onKnown?(urls: readonly string[]): void;
}

export class LinkScheduler {
  readonly #d: LinkSchedulerDeps;
  /** Links already put through the seen filter by this process: their repeats are skipped. */
  readonly #known = new KnownLinks();

  /** A shared crawl's way to take in, now, the seeds other nodes recorded; and whether this process knows a seed already. */
  #seedsElsewhere: { catchUp: () => Promise<void>; knows: (url: string) => boolean } | undefined;

  constructor(deps: LinkSchedulerDeps) {
    this.#d = deps;
  }

  /**
   * In a crawl of several processes: how to take in the seeds recorded
   * elsewhere (`catchUp`), done before judging the links of a seed this
   * process does not know (`knows`: the seeds it has scheduled, its own or
   * taken in), which another node added, maybe with others it links to.
   */
  catchUpSeedsWith(catchUp: () => Promise<void>, knows: (url: string) => boolean): void {
    this.#seedsElsewhere = { catchUp, knows };
  }

  /**
   * Seeds are scheduled like links from nowhere; returns those that were
   * new. Under scope.sitemaps a seed named as a sitemap is queued as one,
   * and under `seeds` each seed host's `/sitemap.xml` goes with it (scoped
   * and seen-checked like a link, refused silently: it is a guess).
   */
  async scheduleSeeds(seeds: readonly CrawlUri[]): Promise<CrawlUri[]> {
    const mode = this.#d.sitemaps ?? 'off';
    const focusSeed = this.#d.focusSeed;
    const ranked = focusSeed === undefined ? seeds : seeds.map((s) => focusSeed(s));
    const marked = mode === 'off' ? ranked : ranked.map((s) => (namesSitemap(s.url) ? { ...s, context: SITEMAP_FROM_SEED } : s));
    const guesses: CrawlUri[] = [];
    if (mode === 'seeds') {
      const guessed = new Set(seeds.map((s) => s.url));
      for (const seed of marked) {
        const url = guessedSitemapUrl(seed.url);
        if (guessed.has(url)) continue;
        guessed.add(url);
        const guess = childUri(seed, url, 'M', SITEMAP_GUESSED);
        if (this.#d.scope.decide(guess).accept) guesses.push(guess);
      }
    }
    const chosen = await this.#scheduleNew([...marked, ...guesses]);
    return chosen.filter((u) => u.seed);
  }

  /**
   * Put-if-absent in the seen filter, queueing the new URIs before the filter
   * records them: a crash in between repeats work, never loses links.
   */
  async #scheduleNew(candidates: readonly CrawlUri[]): Promise<CrawlUri[]> {
    let chosen: CrawlUri[] = [];
    if (candidates.length === 0) return chosen;
    await this.#d.seen.addMany(
      candidates.map((c) => c.url),
      async (fresh) => {
        chosen = candidates.filter((_, i) => fresh[i]);
        if (chosen.length > 0) await this.#d.frontier.schedule(chosen);
      },
    );
    return chosen;
  }

  /** Queues a prerequisite (a redirected robots.txt) whatever the seen filter says. */
  async schedulePrerequisite(uri: CrawlUri): Promise<void> {
    await this.scheduleForced([uri]);
  }

  /** Queues URIs whatever the seen filter says (then records them in it). */
  async scheduleForced(uris: readonly CrawlUri[]): Promise<void> {
    if (uris.length === 0) return;
    await this.#d.frontier.schedule(uris);
    for (const u of uris) await this.#d.seen.addForce(u.url);
  }

  /** Schedules the links found in `parent`'s capture, placed by `focus` in a focused crawl; returns how many were new. */
  async schedule(parent: CrawlUri, links: readonly DiscoveredLink[], focus?: LinkFocus): Promise<number> {
    // A seed's host is in scope when the seeds make the scope: one added on another node of a
    // shared crawl may be fetched here before this node has taken in the seed's record (crawl-wide.ts),
    // and so may its links to the other hosts added with it: those records are taken in first.
    if (parent.seed && this.#d.scope.hostsFromSeeds) {
      this.#d.scope.addHost(new URL(parent.url).host);
      const elsewhere = this.#seedsElsewhere;
      if (elsewhere !== undefined && !elsewhere.knows(parent.url)) await elsewhere.catchUp();
    }
    const candidates: CrawlUri[] = [];
    const refused: CrawlUri[] = [];
    const refusedStatus: number[] = [];
    const refusedReason: string[] = [];
    const closed: Array<{ uri: CrawlUri; status: number; annotation: string }> = [];
    const health = this.#d.health?.anyClosed ? this.#d.health : null;
    const budgets = this.#d.budgets?.any ? this.#d.budgets : null;
    const forced: CrawlUri[] = [];
    const parentKey = links.some((l) => l.hop === 'R') ? canonicalizeForSeen(parent.url) : '';
    const known = focus === undefined ? this.#known : null;
    for (const link of links) {
      if (known !== null && link.hop !== 'R' && known.has(link.url)) continue;
      const child = childUri(parent, link.url, link.hop, link.context);
      if (link.lastmod !== undefined) child.lastmod = link.lastmod;
      if (link.priority !== undefined && link.priority !== 0) child.priority = link.priority;
      if (link.hop === 'R' && child.redirects > this.#d.maxRedirects) {
        refused.push(child);
        refusedStatus.push(-4001);
        refusedReason.push('maxRedirects');
        continue;
      }
      const decision = this.#d.scope.decide(child);
      if (!decision.accept) {
        refused.push(child);
        refusedStatus.push(decision.status);
        refusedReason.push(decision.reason);
        continue;
      }
      if (health !== null) {
        const verdict = health.verdict(hostPortOf(new URL(child.url)));
        if (verdict.kind === 'closed') {
          closed.push({ uri: child, status: verdict.status, annotation: verdict.annotation });
          continue;
        }
      }
      if (budgets?.spent(child.url)) {
        closed.push({ uri: child, status: BUDGET_EXCEEDED_STATUS, annotation: BUDGET_EXCEEDED });
        continue;
      }
      const placed = focus?.place(child, link) ?? 'follow';
      if (placed === 'restricted') {
        refused.push(child);
        refusedStatus.push(FOCUS_RESTRICTED_STATUS);
        refusedReason.push(FOCUS_RESTRICTED);
        continue;
      }
      if (placed === 'forced') {
        forced.push(child);
        continue;
      }
      // A redirect to a URL that canonicalizes like its source (www., session
      // id…) would be dropped as already seen, and replay would then loop on
      // the 3xx: fetch such targets anyway.
      if (link.hop === 'R' && canonicalizeForSeen(child.url) === parentKey && child.url !== parent.url) forced.push(child);
      else candidates.push(child);
    }
    const chosen = await this.#scheduleNew(candidates);
    // Every candidate is in the seen filter now, fresh or not.
    if (known !== null && candidates.length > 0) {
      const urls: string[] = [];
      for (const c of candidates) {
        known.add(c.url);
        urls.push(c.url);
      }
      this.#d.onKnown?.(urls);
    }
    focus?.queued?.(chosen);
    if (forced.length > 0) {
      await this.scheduleForced(forced);
      chosen.push(...forced);
    }
    if (refused.length > 0) {
      const firstTime = await this.#d.refusedSeen.addMany(refused.map((r) => r.url));
      const logged = refused.map((_, i) => i).filter((i) => firstTime[i]);
      // A URL the crawl already has (captured or queued by another path) is no refusal:
      // an image fetched as a page's embed, reached again past the transclusion hops.
      const had = logged.length > 0 ? await this.#d.seen.hasMany(logged.map((i) => refused[i]!.url)) : [];
      logged.forEach((i, j) => {
        if (!had[j]) this.#d.onRefused(refused[i]!, refusedStatus[i] ?? -5000, refusedReason[i] ?? 'outOfScope');
      });
    }
    if (closed.length > 0) {
      // Logged once per URL, like refusals; never queued, never waited for.
      const firstTime = await this.#d.seen.addMany(closed.map((c) => c.uri.url));
      closed.forEach((c, i) => {
        if (firstTime[i]) this.#d.onClosedHost?.(c.uri, c.status, c.annotation);
      });
    }
    return chosen.length;
  }
}
