/**
 * Page-level robots directives: `<meta name="robots">` content and the
 * `X-Robots-Tag` response header. `none` means both noindex and nofollow.
 * Header values scoped to a user agent ("googlebot: noindex") apply only
 * when that token names our own agent.
 */

export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

/** Directives that themselves contain a colon, so "name:" is not a user-agent scope. */
const COLON_DIRECTIVES = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/** Apply a comma-separated directive list to `into`. */
export function applyDirectiveList(list: string, into: RobotsDirectives): void {
  for (const raw of list.split(',')) {
    const token = raw.trim().toLowerCase();
    if (token === 'noindex') into.noindex = true;
    else if (token === 'nofollow') into.nofollow = true;
    else if (token === 'none') {
      into.noindex = true;
      into.nofollow = true;
    }
  }
}

/**
 * X-Robots-Tag from response headers (all occurrences). `userAgent` is our
 * User-Agent string; a scoped value applies when its token occurs in it.
 */
export function robotsDirectivesFromHeaders(
  headers: ReadonlyArray<readonly [string, string]>,
  userAgent?: string,
): RobotsDirectives {
  const out: RobotsDirectives = { noindex: false, nofollow: false };
  const ours = (userAgent ?? '').toLowerCase();
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0];
    const value = headers[i]![1];
    if (name.length !== 12 || name.toLowerCase() !== 'x-robots-tag') continue;
    const scoped = /^\s*([A-Za-z0-9_.-]+)\s*:(.*)$/s.exec(value);
    if (scoped && !COLON_DIRECTIVES.has(scoped[1]!.toLowerCase())) {
      const agent = scoped[1]!.toLowerCase();
      if (ours === '' || !ours.includes(agent)) continue;
      applyDirectiveList(scoped[2]!, out);
    } else {
      applyDirectiveList(value, out);
    }
  }
  return out;
}
