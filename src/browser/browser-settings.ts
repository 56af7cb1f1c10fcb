/**
 * The browser settings of one URL: the profile's `browser` block, then each
 * override covering the URL, least specific first, each changing only the
 * fields it names (as src/overrides/ does for limits). `executable` and
 * `tabs` are the crawl's one Chromium's, so only the top level has them.
 */
import type { BrowserOptions, BrowserPageOptions, Profile } from '../config/profile.js';
import type { Overrides } from '../overrides/overrides.js';
import { targetOfUrl } from '../config/override-match.js';

/** The defaults of the profile schema, for a profile built in code without a `browser` block. */
export const BROWSER_DEFAULTS: Readonly<BrowserOptions> = Object.freeze({
  enabled: false,
  executable: 'chromium',
  tabs: 2,
  pageTimeoutMs: 30000,
  idleMs: 500,
  behaviors: Object.freeze(['autoscroll'] as const),
  behaviorTimeoutMs: 10000,
  maxRequestsPerPage: 500,
});

export class BrowserSettings {
  readonly top: Readonly<BrowserOptions>;
  readonly #overrides: Overrides;
  readonly #anyOverride: boolean;

  constructor(profile: Profile, overrides: Overrides) {
    this.top = profile.browser ?? BROWSER_DEFAULTS;
    this.#overrides = overrides;
    this.#anyOverride = overrides.entries.some((e) => e.spec.browser !== undefined);
  }

  /** Whether any part of the crawl renders pages: if not, no browser starts. */
  get anyEnabled(): boolean {
    return this.top.enabled || this.#overrides.entries.some((e) => e.spec.browser?.enabled === true);
  }

  /** The settings `url` is rendered with. */
  forUrl(url: string): Readonly<BrowserPageOptions> {
    if (!this.#anyOverride) return this.top;
    const target = targetOfUrl(url);
    if (target === null) return this.top;
    let merged: BrowserPageOptions = this.top;
    for (const e of this.#overrides.covering(target)) {
      if (e.spec.browser !== undefined) merged = { ...merged, ...e.spec.browser };
    }
    return merged;
  }
}
