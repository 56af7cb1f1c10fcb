/**
 * SURT keys (Sort-friendly URI Reordering Transform).
 *
 * Two forms live here because two consumers need different things:
 * - `surt()` is the CDXJ index key used by replay (`com,example)/path?a=1&b=2`).
 *   It follows warcio.js `getSurt` (the indexer our WARC tooling uses), so an
 *   index we write and one warcio writes agree: the whole URL lowercased,
 *   scheme and `www\d*.` dropped, host labels reversed, non-default port kept,
 *   query arguments sorted. Non-HTTP(S) or unparsable input comes back as is.
 * - `surtAuthority()` is Heritrix's SURT-authority queue key
 *   (SurtAuthorityQueueAssignmentPolicy): `com,example,www,` — `www` kept,
 *   trailing comma, dotted-quad IPs not reversed, a non-default port appended
 *   as `#port` (Heritrix swaps `:` for `#` so keys are safe file names).
 *   Default ports vanish, so http and https of one host share a queue.
 */
import { httpUrlOf } from './http-url.js';

const WWW_PREFIX = /^www\d*\./;
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** CDXJ SURT key, e.g. `surt('https://www.Example.com:8080/A?b=2&a=1')` → `com,example:8080)/a?a=1&b=2`. */
export function surt(url: string): string {
  const parsed = httpUrlOf(url.toLowerCase());
  if (parsed === null) return url;
  // warcio strips www only when it directly follows the scheme; on the parsed
  // hostname that is the same thing minus the userinfo corner case.
  const host = parsed.hostname.replace(WWW_PREFIX, '');
  let key = host.split('.').reverse().join(',');
  if (parsed.port !== '') key += ':' + parsed.port;
  key += ')' + parsed.pathname;
  if (parsed.search !== '') {
    // Default sort (UTF-16 code units), as warcio and pywb do.
    const args = parsed.search.slice(1).split('&').sort();
    key += '?' + args.join('&');
  }
  return key;
}

/**
 * Heritrix SURT-authority queue key, e.g. `http://www.example.com/` →
 * `com,example,www,`; `http://127.0.0.2:8080/` → `127.0.0.2#8080`.
 * Userinfo is left out (it never selects a different server).
 * Returns Heritrix's `default...` key for URLs without an authority.
 */
export function surtAuthority(url: string): string {
  const parsed = httpUrlOf(url);
  if (parsed === null || parsed.hostname === '') return DEFAULT_CLASS_KEY;
  return surtAuthorityOf(parsed);
}

/** As `surtAuthority` for an already parsed URL (any scheme with a host). */
export function surtAuthorityOf(parsed: URL): string {
  const host = parsed.hostname.toLowerCase();
  if (host === '') return DEFAULT_CLASS_KEY;
  let key: string;
  if (DOTTED_QUAD.test(host) || host.startsWith('[')) {
    key = host;
  } else {
    key = host.split('.').reverse().join(',') + ',';
  }
  if (parsed.port !== '') key += '#' + parsed.port;
  return key;
}

/** Heritrix's key for URIs no policy can place. */
export const DEFAULT_CLASS_KEY = 'default...';

/**
 * Heritrix's SURT with its scheme, as SURT prefixes are written in a
 * profile's overrides: `http://(org,example,www,:8080)/path?q`. Host labels
 * reversed each with a trailing comma, a dotted-quad IP (or `[v6]`) kept as
 * it is, the port inside the parentheses when it is not 80 or 443, path and
 * query as written. https is read as http, as Heritrix compares SURT
 * prefixes (SurtPrefixSet.coerceFromHttpsForComparison): a prefix covers a
 * site whichever scheme serves it. Null for what is not http(s).
 */
export function schemeSurt(url: string): string | null {
  const parsed = httpUrlOf(url);
  if (parsed === null || parsed.hostname === '') return null;
  return `${surtAuthorityPrefix(parsed.hostname, parsed.port)})${parsed.pathname}${parsed.search}`;
}

/** `http://(org,example,www,` (+ `:port` unless 80/443), the authority part of `schemeSurt` before its `)`. */
export function surtAuthorityPrefix(hostname: string, port: string | null): string {
  const host = hostname.toLowerCase();
  const reversed = DOTTED_QUAD.test(host) || host.startsWith('[') ? host : `${host.split('.').reverse().join(',')},`;
  const shown = port === null || port === '' || port === '80' || port === '443' ? '' : `:${port}`;
  return `http://(${reversed}${shown}`;
}
