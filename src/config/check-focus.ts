/**
 * What `focus` means for the rest of the profile, checked and applied once
 * at load: a topic needs keywords or training; `focus` implies
 * `frontier.order: best-first` and `frontier.precedence: priority`, so a
 * profile that names another order or `fifo` beside it contradicts itself
 * (an error naming the path, not a silent override); training entries are
 * http(s) URLs, or paths (job directories, WARC files) resolved against the
 * working directory as `output.dir` is.
 */
import path from 'node:path';
import type { Profile } from './profile.js';

export function applyFocus(raw: unknown, p: Profile, cwd: string, fail: (at: string, problem: string) => void): void {
  const focus = p.focus;
  if (focus === undefined) return;
  if (focus.keywords.length === 0 && focus.training.length === 0) fail('/focus', 'a topic needs "keywords" or "training" (or both)');
  const given = field(field(raw, 'frontier'), 'order');
  if (given !== undefined && given !== 'best-first') fail('/frontier/order', `focus crawls best-first; ${JSON.stringify(given)} contradicts it (leave frontier.order out, or write "best-first")`);
  const precedence = field(field(raw, 'frontier'), 'precedence');
  if (precedence !== undefined && precedence !== 'priority') fail('/frontier/precedence', `focus serves the most promising queue first; ${JSON.stringify(precedence)} contradicts it (leave it out, or write "priority")`);
  const frontier = p.frontier as { order: string; precedence: string };
  frontier.order = 'best-first';
  frontier.precedence = 'priority';
  const training = focus.training.map((entry, i) => {
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(entry)?.[1]?.toLowerCase();
    if (scheme === undefined) return path.resolve(cwd, entry);
    if (scheme !== 'http' && scheme !== 'https') {
      fail(`/focus/training/${i}`, `a URL to fetch must be http or https, got ${scheme}:`);
      return entry;
    }
    try {
      return new URL(entry).href;
    } catch {
      fail(`/focus/training/${i}`, `not an absolute URL: ${JSON.stringify(entry)}`);
      return entry;
    }
  });
  (focus as { training: readonly string[] }).training = training;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}
