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
 * all three agree.
 */

/** A URL split for the rules below; `query` is null when there is no `?` at all. */
interface Parts {
  scheme: string;
  /** Lowercase host, with a non-default port. */
  authority: string;
  path: string;
  query: string | null;
  /**
   * The input URL when it is exactly scheme//authority path[?query]: if the
   * rules then change nothing, it is returned as is (no new string to build,
   * and it is already flat for the fingerprint loop).
   */
  source: string | null;
}

/** Schemes whose userinfo is stripped (StripUserinfoRule). */
const USERINFO_SCHEMES = new Set(['http:', 'https:', 'ftp:', 'ftps:']);

/** `;jsessionid=…` path parameter, up to the next parameter or segment. */
const PATH_JSESSIONID = /;jsessionid=[^;/]*/gi;

/** Cheap pre-check: could this query hold a session id or stray `&`? */
const QUERY_SUSPECT = /sid|sess|cfid|cftoken|^&|&$/i;
/** StripSessionIDs value patterns (jsessionid/phpsessid/sid: 32 alphanumerics). */
const SESSION_NAME = /^(?:jsessionid|phpsessid|sid)$/i;
const SESSION_VALUE = /^[0-9a-z]{32}$/i;
const ASP_NAME = /^aspsessionid[a-z]{8}$/i;
const ASP_VALUE = /^[a-z]{24}$/i;

/**
 * ASCII characters that WHATWG would percent-encode or reinterpret in an
 * http(s) path or query (or that we prefer not to reason about): their
 * presence sends a URL to the slow path.
 */
const SLOW_CHARS = new Uint8Array(128);
for (const ch of ' "\'<>\\^`{|}') SLOW_CHARS[ch.charCodeAt(0)] = 1;
for (let c = 0; c <= 0x20; c++) SLOW_CHARS[c] = 1;
SLOW_CHARS[0x7f] = 1;

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
 * Whether the host `url[start, end)`, whose last label starts at
 * `lastLabel`, is one the WHATWG parser leaves as it is (as far as the two
 * quick paths can tell from its shape): not empty, no trailing dot, and a
 * last label that is not a number (IPv4 rules) unless the whole host is a
 * canonical IPv4 address.
 */
function hostParserKeeps(url: string, start: number, lastLabel: number, end: number): boolean {
  if (end === start || lastLabel >= end) return false;
  const first = url.charCodeAt(lastLabel);
  return !(first >= 48 && first <= 57) || isCanonicalIpv4(url, start, end);
}

/**
 * Whether `url[start, end)` is an IPv4 address as WHATWG serializes it —
 * four decimal parts of 0-255 without leading zeros — so parsing leaves it
 * as it is. Other numeric hosts (127.1, 0x7f.0.0.1, 010.0.0.1, 1.2.3.256,
 * example.123) are changed or refused by the parser: the slow path's.
 */
function isCanonicalIpv4(url: string, start: number, end: number): boolean {
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = start; i <= end; i++) {
    const c = i === end ? 46 /* end closes the last part like a dot */ : url.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || value > 255 || (digits > 1 && url.charCodeAt(i - digits) === 48)) return false;
      parts++;
      value = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (++digits > 3) return false;
      value = value * 10 + (c - 48);
    } else {
      return false;
    }
  }
  return parts === 4;
}

/** Fast split of plain ASCII http(s) URLs that WHATWG would not change; null = use the slow path. */
function fastParts(url: string): Parts | null {
  let i: number;
  let scheme: string;
  let exact = url.startsWith('https://') || url.startsWith('http://');
  if (url.startsWith('https://') || startsWithAsciiCI(url, 'https://')) {
    scheme = 'https:';
    i = 8;
  } else if (url.startsWith('http://') || startsWithAsciiCI(url, 'http://')) {
    scheme = 'http:';
    i = 7;
  } else {
    return null;
  }

  const hostStart = i;
  let labelStart = i;
  let portStart = -1;
  let upper = false;
  for (; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) break;
    if (portStart >= 0) {
      if (c < 48 || c > 57) return null;
    } else if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95) {
      // plain host character
    } else if (c === 46 /* . */) {
      labelStart = i + 1;
    } else if (c >= 65 && c <= 90) {
      upper = true;
    } else if (c === 58 /* : */) {
      portStart = i + 1;
    } else {
      return null; // userinfo, IPv6, percent-encoding, non-ASCII: slow path
    }
  }
  const hostEnd = portStart >= 0 ? portStart - 1 : i;
  if (!hostParserKeeps(url, hostStart, labelStart, hostEnd)) return null;
  let host = url.slice(hostStart, hostEnd);
  if (upper) {
    host = host.toLowerCase();
    exact = false;
  }
  if (host.includes('xn--')) return null; // punycode needs validation: the WHATWG parser's

  let authority = host;
  if (portStart >= 0) {
    const port = url.slice(portStart, i);
    if (port === '' || (port.length > 1 && port.startsWith('0')) || Number(port) > 65535) return null;
    if (!((scheme === 'http:' && port === '80') || (scheme === 'https:' && port === '443'))) authority += ':' + port;
    else exact = false;
  }

  const pathStart = i;
  let queryStart = -1;
  let end = url.length;
  for (; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 35 /* # */) {
      end = i;
      break;
    }
    if (c === 63 /* ? */ && queryStart < 0) queryStart = i;
    else if (c >= 128 || SLOW_CHARS[c] === 1) return null;
  }
  let path = url.slice(pathStart, queryStart < 0 ? end : queryStart);
  if (path === '') {
    path = '/';
    exact = false;
  }
  if (end !== url.length) exact = false; // a fragment was cut
  // Dot segments (also percent-encoded ones) are resolved by the parser.
  if (path.includes('/.') || (path.includes('%') && /%2e/i.test(path))) return null;
  const query = queryStart < 0 ? null : url.slice(queryStart + 1, end);
  return { scheme, authority, path, query, source: exact ? url : null };
}

/** What a scope decision reads of a URL: URL's own fields, as `new URL(url)` would give them. */
export type HttpUrlParts = Pick<URL, 'protocol' | 'hostname' | 'port' | 'pathname'>;

/**
 * Those fields of a plain http(s) URL that the WHATWG parser would leave as
 * it is (fastParts' judgement), without building a URL object: about a
 * microsecond and its garbage saved per discovered link. null: use `new URL`.
 */
export function plainHttpParts(url: string): HttpUrlParts | null {
  const p = fastParts(url);
  if (p === null) return null;
  // fastParts refuses userinfo and IPv6, so a colon in the authority starts the port.
  const colon = p.authority.indexOf(':');
  return {
    protocol: p.scheme,
    hostname: colon < 0 ? p.authority : p.authority.slice(0, colon),
    port: colon < 0 ? '' : p.authority.slice(colon + 1),
    pathname: p.path,
  };
}

/** Split through the WHATWG parser; a string result is final (opaque or unparsable). */
function whatwgParts(url: string): Parts | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const scheme = u.protocol; // already lowercase, with the colon
  const hashAt = u.href.indexOf('#'); // an empty fragment leaves u.hash '' but '#' in href
  const hrefNoHash = hashAt === -1 ? u.href : u.href.slice(0, hashAt);

  if (u.host === '' && !u.href.startsWith('//', scheme.length)) {
    // Opaque URLs such as `dns:Example.org`: nothing to split; a dns: body is
    // a host name, so it is case-insensitive too.
    const opaque = u.pathname + u.search;
    return scheme + (scheme === 'dns:' ? opaque.toLowerCase() : opaque);
  }
  // u.host is lowercase, punycoded, without userinfo and without a default port.
  const userinfo =
    !USERINFO_SCHEMES.has(scheme) && (u.username !== '' || u.password !== '')
      ? u.username + (u.password !== '' ? ':' + u.password : '') + '@'
      : '';
  const hasQuery = u.search !== '' || hrefNoHash.endsWith('?');
  return { scheme, authority: userinfo + u.host, path: u.pathname, query: hasQuery ? u.search.slice(1) : null, source: null };
}

function startsWithAsciiCI(s: string, lowerPrefix: string): boolean {
  if (s.length < lowerPrefix.length) return false;
  for (let i = 0; i < lowerPrefix.length; i++) {
    const c = s.charCodeAt(i);
    const p = lowerPrefix.charCodeAt(i);
    if (c !== p && !(p >= 97 && p <= 122 && c === p - 32)) return false;
  }
  return true;
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
