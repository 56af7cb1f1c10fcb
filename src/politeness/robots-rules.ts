/**
 * What one host's robots.txt says, behind a small interface: the parsed file
 * (robots-parser does the matching — longest rule wins, ties allow, `*` and
 * `$` wildcards, groups naming the same agent merged), or one of the two
 * verdicts a missing/unavailable file implies (allow all, disallow all).
 *
 * Rules here are independent of the host they came from: the store keys them
 * by origin, and the custom policy applies one set to every host.
 */
import { createRequire } from 'node:module';

/** The part of robots-parser's Robot we use. */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}

/*
 * robots-parser is CommonJS whose `module.exports` is the function, while its
 * typings claim an ES default export; under NodeNext the default import is
 * typed wrongly, so it is loaded with require and given its real type here.
 */
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => ParsedRobots;

export interface RobotsRules {
  readonly kind: 'parsed' | 'allowAll' | 'disallowAll';
  /** May `agent` (a User-Agent string or its product token) fetch the absolute `url`? */
  isAllowed(url: string, agent: string): boolean;
  /** Crawl-delay in seconds for `agent` (its own group, else `*`); null when none. */
  crawlDelay(agent: string): number | null;
  /** User-agent names the file mentions, as written, first mention wins, `*` included. */
  agents(): readonly string[];
  /** The file's `Sitemap:` URLs, as written (agent groups play no part in them). */
  sitemaps(): readonly string[];
}

/**
 * The token robots.txt groups are matched against: the product token of a
 * User-Agent (`archiver` from `archiver/0.1 (+https://…)`), lower-cased, as
 * RFC 9309 asks and as robots-parser normalises the file's own lines.
 */
export function agentToken(userAgent: string): string {
  const trimmed = userAgent.trim().toLowerCase();
  const end = trimmed.search(/[\s/]/);
  return end < 0 ? trimmed : trimmed.slice(0, end);
}

export const ALLOW_ALL: RobotsRules = Object.freeze({
  kind: 'allowAll' as const,
  isAllowed: () => true,
  crawlDelay: () => null,
  agents: () => [],
  sitemaps: () => [],
});

export const DISALLOW_ALL: RobotsRules = Object.freeze({
  kind: 'disallowAll' as const,
  isAllowed: () => false,
  crawlDelay: () => null,
  agents: () => [],
  sitemaps: () => [],
});

/*
 * robots-parser refuses (answers undefined) for URLs of another origin than
 * the robots.txt it was built with. Our rules are origin-free, so every file
 * is parsed as if it lived here and URLs are re-rooted onto this origin.
 */
const NEUTRAL_ORIGIN = 'http://robots.invalid';

/** Parse robots.txt text (a UTF-8 byte-order mark is harmless: String#trim removes it). */
export function parseRobotsTxt(text: string): RobotsRules {
  const robot = robotsParser(`${NEUTRAL_ORIGIN}/robots.txt`, text);
  const named = scanAgents(text);
  const sitemaps = Object.freeze(robot.getSitemaps().map((s) => s.trim()).filter((s) => s !== ''));
  return Object.freeze({
    kind: 'parsed' as const,
    isAllowed(url: string, agent: string): boolean {
      const rerooted = reroot(url);
      if (rerooted === null) return false;
      return robot.isAllowed(rerooted, agentToken(agent)) !== false;
    },
    crawlDelay(agent: string): number | null {
      const seconds = robot.getCrawlDelay(agentToken(agent));
      return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
    },
    agents: () => named,
    sitemaps: () => sitemaps,
  });
}

function reroot(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return NEUTRAL_ORIGIN + parsed.pathname + parsed.search;
}

/**
 * robots-parser keeps its groups private, and mostFavored needs to know
 * which agents the file names, so the `User-agent:` lines are scanned here.
 * Names are normalised the way robots-parser keys them (version cut off) but
 * keep their case, so a masquerading crawler can send them as written.
 */
function scanAgents(text: string): readonly string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*/, '');
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'user-agent') continue;
    let name = line.slice(colon + 1);
    const slash = name.indexOf('/');
    if (slash >= 0) name = name.slice(0, slash);
    name = name.trim();
    if (name === '' || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return Object.freeze(names);
}
