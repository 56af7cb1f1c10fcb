/**
 * Canonicalization for the already-seen check only. Two URLs that canonicalize
 * to the same string are treated as one URL by the seen filter; the URL that
 * is fetched, logged and archived is never rewritten by this.
 *
 * Follows Heritrix's default RulesCanonicalizationPolicy (after UURI
 * normalization): lowercase scheme and host, IDN to punycode, no userinfo, no
 * default port, no fragment; strip `www\d*.` from http(s) hosts when the URL
 * has something after the root slash (top pages stay distinct, as in
 * StripWWWNRule: a site may answer on only one of the two names); strip
 * session ids; drop an empty query and stray leading/trailing `&`.
 *
 * Deliberate differences from Heritrix, each for a reason:
 * - the path keeps its case (Heritrix lowercases the whole URL, which merges
 *   distinct pages on case-sensitive servers);
 * - every matching session parameter is removed, not only the last one (their
 *   regexes are anchored on the final match);
 * - `;jsessionid=` path parameters are removed whatever their value length.
 *
 * Every outlink of every page passes through here, so there are three
 * paths: one scan that proves the commonest links already canonical (or
 * canonical but for a fragment or `www.`) and returns the input, no parts
 * built; a hand-written split of other plain ASCII http(s) URLs that WHATWG
 * parsing would leave as they are; `new URL` for anything else. Tests check
 * all three agree. The two splits are url-split.ts's.
 */
import { fastParts, hostParserKeeps, SLOW_CHARS, whatwgParts, type Parts } from './url-split.js';

/** `;jsessionid=…` path parameter, up to the next parameter or segment. */
const PATH_JSESSIONID = /;jsessionid=[^;/]*/gi;

/** Cheap pre-check: could this query hold a session id or stray `&`? */
const QUERY_SUSPECT = /sid|sess|cfid|cftoken|^&|&$/i;
/** StripSessionIDs value patterns (jsessionid/phpsessid/sid: 32 alphanumerics). */
const SESSION_NAME = /^(?:jsessionid|phpsessid|sid)$/i;
const SESSION_VALUE = /^[0-9a-z]{32}$/i;
const ASP_NAME = /^aspsessionid[a-z]{8}$/i;
const ASP_VALUE = /^[a-z]{24}$/i;

/** Plain host characters: a-z, 0-9, `-` and `_` (the dot is handled apart). */
const HOST_CHARS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) HOST_CHARS[c] = 1;
for (let c = 48; c <= 57; c++) HOST_CHARS[c] = 1;
HOST_CHARS[45] = 1;
HOST_CHARS[95] = 1;

/**
 * Query parameter names that could be a session id (stripSessionParams):
 * length → first letter, lowercase. A name that fits sends the URL to the
 * full rules; the test is loose on purpose, it only has to be cheap.
 */
const SESSION_NAME_FIRST = new Uint8Array(21);
SESSION_NAME_FIRST[3] = 115; // sid
SESSION_NAME_FIRST[4] = 99; // cfid
SESSION_NAME_FIRST[7] = 99; // cftoken
SESSION_NAME_FIRST[9] = 112; // phpsessid
SESSION_NAME_FIRST[10] = 106; // jsessionid
SESSION_NAME_FIRST[20] = 97; // aspsessionidXXXXXXXX

/** Canonical form of `url` for the seen check; unparsable input comes back unchanged. */
export function canonicalizeForSeen(url: string): string {
  const quick = quickCanonical(url);
  if (quick !== null) return quick;
  const parts = fastParts(url) ?? whatwgParts(url);
  return typeof parts === 'string' ? parts : finish(parts);
}

/**
 * The canonical form of the commonest link, found in one scan of its code
 * units without splitting it: a lowercase `http://` or `https://` URL with a
 * plain lowercase host, a non-default port if any, a path and a query that
 * neither WHATWG parsing nor the rules would change. Such a URL is its own
 * canonical form, less a fragment and a leading `www\d*.` that finish()
 * would cut. null means "not proven": fastParts and finish() decide, and
 * they give the same answer for every URL this accepts (tests check it).
 */
function quickCanonical(url: string): string | null {
  let i: number;
  let defaultPort: number;
  if (url.startsWith('https://')) {
    i = 8;
    defaultPort = 443;
  } else if (url.startsWith('http://')) {
    i = 7;
    defaultPort = 80;
  } else {
    return null;
  }
  const n = url.length;
  const hostStart = i;
  let labelStart = i;
  let c = 0;
  for (; i < n; i++) {
    c = url.charCodeAt(i);
    if (c === 46 /* . */) {
      labelStart = i + 1;
    } else if (c >= 128 || HOST_CHARS[c] !== 1) {
      break;
    } else if (c === 45 /* - */ && i - 3 >= labelStart && url.startsWith('xn--', i - 3)) {
      return null; // punycode needs validation
    }
  }
  const hostEnd = i;
  if (!hostParserKeeps(url, hostStart, labelStart, hostEnd)) return null;
  if (c === 58 /* : */ && i < n) {
    const portStart = ++i;
    let port = 0;
    for (; i < n; i++) {
      c = url.charCodeAt(i);
      if (c < 48 || c > 57) break;
      port = port * 10 + (c - 48);
    }
    const digits = i - portStart;
    if (digits === 0 || digits > 5 || port > 65535 || port === defaultPort || (digits > 1 && url.charCodeAt(portStart) === 48)) return null;
  }
  // Anything but a path here (userinfo, `?` or `#` right after the host, the end) is for the full rules.
  if (i >= n || url.charCodeAt(i) !== 47 /* / */) return null;

  const pathStart = i;
  let prev = 0;
  for (; i < n; i++) {
    c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) break;
    if (c >= 128 || SLOW_CHARS[c] === 1 || c === 59 /* ; */) return null;
    if (c === 46 /* . */ && prev === 47 /* / */) return null; // dot segment, or maybe one
    if (c === 37 /* % */ && url.charCodeAt(i + 1) === 50 /* 2 */ && (url.charCodeAt(i + 2) | 32) === 101 /* e */) return null;
    prev = c;
  }
  const pathEnd = i;

  if (c === 63 /* ? */ && i < n) {
    i++;
    const queryStart = i;
    let nameStart = i;
    let inValue = false;
    for (; i < n; i++) {
      c = url.charCodeAt(i);
      if (c === 35 /* # */) break;
      if (c >= 128 || SLOW_CHARS[c] === 1) return null;
      if (c === 38 /* & */) {
        nameStart = i + 1;
        inValue = false;
      } else if (c === 61 /* = */ && !inValue) {
        inValue = true;
        const length = i - nameStart;
        if (length <= 20 && SESSION_NAME_FIRST[length] === (url.charCodeAt(nameStart) | 32)) return null;
      }
    }
    // An empty query, or an empty parameter at either end, would be dropped.
    if (i === queryStart || url.charCodeAt(queryStart) === 38 || url.charCodeAt(i - 1) === 38) return null;
  } else if (pathEnd - pathStart === 1) {
    // A top page keeps its www (StripWWWNRule); nothing else can change.
    return i === n ? url : url.slice(0, i);
  }
  const end = i;

  // `www`, digits, `.`, then more host: cut (finish() and stripWwwN).
  if (url.startsWith('www', hostStart)) {
    let j = hostStart + 3;
    while (j < hostEnd && url.charCodeAt(j) >= 48 && url.charCodeAt(j) <= 57) j++;
    if (url.charCodeAt(j) === 46 && j + 1 < hostEnd) return url.slice(0, hostStart) + url.slice(j + 1, end);
  }
  return end === n ? url : url.slice(0, end);
}

/**
 * The same result computed only through `new URL`. Exported as the
 * reference the fast path is tested against; callers use canonicalizeForSeen.
 */
export function canonicalizeViaWhatwg(url: string): string {
  const parts = whatwgParts(url);
  return typeof parts === 'string' ? parts : finish(parts);
}

function finish(p: Parts): string {
  let authority = p.authority;
  // StripWWWNRule runs before the session rules, so "something after the
  // root slash" is judged on the URL as it came (a bare `?` counts).
  if ((p.scheme === 'http:' || p.scheme === 'https:') && (p.path.length > 1 || p.query !== null)) {
    authority = stripWwwN(authority);
  }
  const path = p.path.includes(';') ? p.path.replace(PATH_JSESSIONID, '') : p.path;
  const query = p.query === null ? '' : stripSessionParams(p.query);
  if (p.source !== null && authority === p.authority && path === p.path && (p.query === null || (query !== '' && query === p.query))) {
    return p.source;
  }
  return p.scheme + '//' + authority + path + (query === '' ? '' : '?' + query);
}

/** `www.`, `www1.`, `www0001.` … at the start of the host, if followed by more host. */
function stripWwwN(authority: string): string {
  if (!authority.startsWith('www')) return authority;
  let i = 3;
  while (i < authority.length && authority.charCodeAt(i) >= 48 && authority.charCodeAt(i) <= 57) i++;
  const rest = authority.slice(i + 1);
  // Keep "www." itself, or "www.:8080": stripping would leave no host.
  return authority.charCodeAt(i) === 46 /* . */ && rest !== '' && !rest.startsWith(':') ? rest : authority;
}

/**
 * The query (without its `?`) minus session-id parameters and minus empty
 * parameters at either end (FixupQueryString); '' if nothing is left.
 */
function stripSessionParams(query: string): string {
  if (query === '' || !QUERY_SUSPECT.test(query)) return query;
  const params = query.split('&');
  const names = params.map((p) => {
    const eq = p.indexOf('=');
    return (eq === -1 ? p : p.slice(0, eq)).toLowerCase();
  });
  // ColdFusion ids only count as a session when both halves are present.
  const coldFusion = names.includes('cfid') && names.includes('cftoken');

  const kept: string[] = [];
  for (let i = 0; i < params.length; i++) {
    const p = params[i] as string;
    const name = names[i] as string;
    const eq = p.indexOf('=');
    if (eq !== -1) {
      const value = p.slice(eq + 1);
      if (SESSION_NAME.test(name) && SESSION_VALUE.test(value)) continue;
      if (ASP_NAME.test(name) && ASP_VALUE.test(value)) continue;
      if (coldFusion && (name === 'cfid' || name === 'cftoken')) continue;
    }
    kept.push(p);
  }
  let start = 0;
  let end = kept.length;
  while (start < end && kept[start] === '') start++;
  while (end > start && kept[end - 1] === '') end--;
  return kept.slice(start, end).join('&');
}
