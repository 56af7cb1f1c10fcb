/**
 * Link URLs this process has already put through the seen filter, exactly
 * as extracted. A site's navigation repeats the same links on every page
 * (a documentation page links to its table of contents, its neighbours and
 * its index: most of the PostgreSQL docs' 70,000 links are ~1,200 URLs):
 * each repeat cost a child URI, a scope decision, canonicalization, two
 * fingerprints and a seen-filter lookup on the crawl's main thread, to learn
 * what this set says at once. A URL in the seen filter can only be found
 * "already seen" again, so skipping it changes nothing (callers keep
 * redirects and a focused crawl's forced links off this path).
 *
 * Bounded: two generations of at most `capacity` URLs each; when the newer
 * one fills, the older is dropped (a dropped URL just takes the full path
 * once more).
 */
export const KNOWN_LINKS_CAPACITY = 20_000;

/** The page thread's copy of it (page-work.ts): a site's navigation, not its every page. */
export const KNOWN_THERE_CAPACITY = 4096;

export class KnownLinks {
  readonly #capacity: number;
  #current = new Set<string>();
  #previous = new Set<string>();

  constructor(capacity = KNOWN_LINKS_CAPACITY) {
    this.#capacity = capacity;
  }

  has(url: string): boolean {
    if (this.#current.has(url)) return true;
    if (!this.#previous.has(url)) return false;
    this.add(url);
    return true;
  }

  add(url: string): void {
    if (this.#current.size >= this.#capacity) {
      this.#previous = this.#current;
      this.#current = new Set();
    }
    this.#current.add(url);
  }
}
