/**
 * The effective settings of a host or a URL under the profile's `overrides`
 * (Heritrix's sheets): the top of the profile, then every override whose
 * match covers it, least specific first, each changing only the fields it
 * names — so the longest matching prefix wins, field by field. Per-host
 * settings (politeness, robots, the host's transport retries) come from
 * host-level matches only; per-URL ones (a fetch's limits, the URI's own
 * retries, scope excludes) from every match that covers the URL.
 *
 * Resolved settings are cached by the set of matches that apply, not by
 * host: a crawl of a million hosts keeps one object per combination.
 */
import type { LimitOptions, PolitenessOptions, Profile, ProfileOverride, RobotsOptions } from '../config/profile.js';
import { parseOverrideMatch, targetOfHost, targetOfUrl, type HostTarget, type OverrideMatch, type ParsedTarget } from '../config/override-match.js';

/** What a host is crawled with. */
export interface HostSettings {
  politeness: PolitenessOptions;
  robots: RobotsOptions;
  /** The host's failed transport rounds and their wait (HostHealth). */
  maxRetries: number;
  retryDelayMs: number;
  /** The matches that apply, least specific first ([] when none). */
  matches: readonly string[];
}

/** What one URL is fetched with. */
export interface UrlSettings {
  limits: Pick<LimitOptions, 'maxBodyBytes' | 'fetchTimeoutMs' | 'maxFetchDurationMs' | 'maxRetries' | 'retryDelayMs'>;
  /** The most specific match's `scope.exclude` (the profile's own excludes are the Scope's). */
  exclude: readonly RegExp[];
  matches: readonly string[];
}

/** The overrides that apply to a host, for reports and status pages. */
export interface HostOverrides {
  /** The matches that apply, least specific first. */
  matches: readonly string[];
  /** Each setting that differs from the top of the profile, as `section.field` → value. */
  settings: Record<string, unknown>;
}

/** One override, parsed. */
export interface OverrideEntry {
  readonly index: number;
  readonly match: OverrideMatch;
  readonly spec: ProfileOverride;
}

const NO_EXCLUDES: readonly RegExp[] = Object.freeze([]);

export class Overrides {
  readonly entries: readonly OverrideEntry[];
  readonly #profile: Profile;
  /** Host-level entries, and all entries, most specific last (ties: the later in the profile last). */
  readonly #hostLevel: readonly OverrideEntry[];
  readonly #ranked: readonly OverrideEntry[];
  readonly #withExcludes: boolean;
  readonly #hostCache = new Map<string, HostSettings>();
  readonly #urlCache = new Map<string, UrlSettings>();
  readonly #default: { host: HostSettings; url: UrlSettings };

  /** The profile is validated: every match parses (check-overrides.ts). */
  constructor(profile: Profile) {
    this.#profile = profile;
    this.entries = profile.overrides.map((spec, index) => {
      const match = parseOverrideMatch(spec.match);
      if (match === null) throw new RangeError(`override ${index}: unreadable match ${JSON.stringify(spec.match)}`);
      return Object.freeze({ index, match, spec });
    });
    this.#ranked = [...this.entries].sort((a, b) => a.match.rank - b.match.rank || a.index - b.index);
    this.#hostLevel = this.#ranked.filter((e) => e.match.hostLevel);
    this.#withExcludes = this.entries.some((e) => e.spec.scope?.exclude !== undefined);
    this.#default = { host: this.#hostSettings([]), url: this.#urlSettings([]) };
  }

  /** Whether the profile has any override. */
  get any(): boolean {
    return this.entries.length > 0;
  }

  /** The most connections any host may get: the frontier's per-queue limit and the fetcher's pool size. */
  get maxConnectionsCeiling(): number {
    let max = this.#profile.politeness.maxConnectionsPerHost;
    for (const e of this.entries) max = Math.max(max, e.spec.politeness?.maxConnectionsPerHost ?? 0);
    return max;
  }

  /** A host's settings; `host` as URLs write it (`example.org`, `example.org:8080`) or `hostname:port`. */
  forHost(host: string): HostSettings {
    if (this.#hostLevel.length === 0) return this.#default.host;
    const target = targetOfHost(host);
    const applying = this.#hostLevel.filter((e) => e.match.coversHost(target));
    return this.#cached(this.#hostCache, applying, () => this.#hostSettings(applying));
  }

  /** A URL's fetch settings. */
  forUrl(url: string): UrlSettings {
    if (this.entries.length === 0) return this.#default.url;
    const target = targetOfUrl(url);
    if (target === null) return this.#default.url;
    const applying = this.covering(target);
    return this.#cached(this.#urlCache, applying, () => this.#urlSettings(applying));
  }

  /** The override excludes that apply to `url` (none unless some override names excludes). */
  excludesFor(url: string): readonly RegExp[] {
    return this.#withExcludes ? this.forUrl(url).exclude : NO_EXCLUDES;
  }

  /** Every entry covering the URL, least specific first. */
  covering(target: ParsedTarget): OverrideEntry[] {
    return this.#ranked.filter((e) => e.match.coversUrl(target));
  }

  /**
   * A host's settings that differ from the top of the profile, as
   * `section.field` → value, with the matches that apply: what the hosts
   * report shows. Null when no override applies to the host.
   */
  describeHost(host: string): HostOverrides | null {
    const s = this.forHost(host);
    if (s.matches.length === 0) return null;
    const p = this.#profile;
    const settings: Record<string, unknown> = {};
    diff('politeness', s.politeness, p.politeness, settings);
    diff('robots', { ...s.robots, unavailable: undefined }, { ...p.robots, unavailable: undefined }, settings);
    diff('robots.unavailable', s.robots.unavailable, p.robots.unavailable, settings);
    // Limits as the host-level matches set them: a budget means the host's, whatever the crawl's total is.
    for (const { spec } of this.#hostLevel.filter((e) => s.matches.includes(e.spec.match))) {
      for (const [key, value] of Object.entries(spec.limits ?? {})) if (value !== undefined) settings[`limits.${key}`] = value;
    }
    return { matches: s.matches, settings };
  }

  #cached<T>(cache: Map<string, T>, applying: readonly OverrideEntry[], make: () => T): T {
    const key = applying.map((e) => e.index).join(',');
    let value = cache.get(key);
    if (value === undefined) {
      value = make();
      cache.set(key, value);
    }
    return value;
  }

  #hostSettings(applying: readonly OverrideEntry[]): HostSettings {
    const p = this.#profile;
    let politeness: PolitenessOptions = p.politeness;
    let robots: RobotsOptions = p.robots;
    let maxRetries = p.limits.maxRetries;
    let retryDelayMs = p.limits.retryDelayMs;
    for (const { spec } of applying) {
      if (spec.politeness) politeness = mergePoliteness(politeness, spec.politeness);
      if (spec.robots) robots = mergeRobots(robots, spec.robots);
      maxRetries = spec.limits?.maxRetries ?? maxRetries;
      retryDelayMs = spec.limits?.retryDelayMs ?? retryDelayMs;
    }
    return deepFreeze({ politeness, robots, maxRetries, retryDelayMs, matches: applying.map((e) => e.spec.match) });
  }

  #urlSettings(applying: readonly OverrideEntry[]): UrlSettings {
    const l = this.#profile.limits;
    const limits: UrlSettings['limits'] = {
      maxBodyBytes: l.maxBodyBytes,
      fetchTimeoutMs: l.fetchTimeoutMs,
      maxFetchDurationMs: l.maxFetchDurationMs,
      maxRetries: l.maxRetries,
      retryDelayMs: l.retryDelayMs,
    };
    let exclude: readonly string[] = [];
    for (const { spec } of applying) {
      for (const key of Object.keys(limits) as Array<keyof UrlSettings['limits']>) limits[key] = spec.limits?.[key] ?? limits[key];
      exclude = spec.scope?.exclude ?? exclude;
    }
    return Object.freeze({
      limits: Object.freeze(limits),
      exclude: Object.freeze(exclude.map((re) => new RegExp(re))),
      matches: Object.freeze(applying.map((e) => e.spec.match)),
    });
  }
}

/**
 * The fields `over` names replace those of `base`. A delay bound set by the
 * override wins over the inherited other bound: an override's minDelayMs
 * above the inherited maxDelayMs raises it (and a maxDelayMs below the
 * inherited minimum lowers that), so `minDelayMs: 400` means 400 ms even
 * under a profile whose maxDelayMs is 0.
 */
export function mergePoliteness(base: PolitenessOptions, over: Partial<PolitenessOptions>): PolitenessOptions {
  const merged = { ...base, ...defined(over) };
  if (over.minDelayMs !== undefined && over.maxDelayMs === undefined) merged.maxDelayMs = Math.max(merged.maxDelayMs, merged.minDelayMs);
  if (over.maxDelayMs !== undefined && over.minDelayMs === undefined) merged.minDelayMs = Math.min(merged.minDelayMs, merged.maxDelayMs);
  return merged;
}

export function mergeRobots(base: RobotsOptions, over: NonNullable<ProfileOverride['robots']>): RobotsOptions {
  const { unavailable, ...rest } = over;
  return { ...base, ...defined(rest), unavailable: { ...base.unavailable, ...defined(unavailable ?? {}) } };
}

/** `o` without its undefined fields (a frozen profile never has any, but a spread must not unset a field). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function diff(section: string, effective: object, base: object, out: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(effective)) {
    if (value === undefined) continue;
    const was = (base as Record<string, unknown>)[key];
    if (JSON.stringify(value) !== JSON.stringify(was)) out[`${section}.${key}`] = value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export type { HostTarget, ParsedTarget };
