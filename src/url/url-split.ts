/**
 * A URL split into scheme, authority, path and query as the WHATWG parser
 * would serialize them: by hand for plain ASCII http(s) URLs that parsing
 * would leave as they are (fastParts, and plainHttpParts for the scope),
 * through `new URL` for anything else (whatwgParts). The first step of
 * canonicalization (canonicalize.ts); tests check both splits agree.
 */

/** A URL split for the canonicalization rules; `query` is null when there is no `?` at all. */
export interface Parts {
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

/**
 * ASCII characters that WHATWG would percent-encode or reinterpret in an
 * http(s) path or query (or that we prefer not to reason about): their
 * presence sends a URL to the slow path.
 */
export const SLOW_CHARS = new Uint8Array(128);
for (const ch of ' "\'<>\\^`{|}') SLOW_CHARS[ch.charCodeAt(0)] = 1;
for (let c = 0; c <= 0x20; c++) SLOW_CHARS[c] = 1;
SLOW_CHARS[0x7f] = 1;

/**
 * Whether the host `url[start, end)`, whose last label starts at
 * `lastLabel`, is one the WHATWG parser leaves as it is (as far as the two
 * quick paths can tell from its shape): not empty, no trailing dot, and a
 * last label that is not a number (IPv4 rules) unless the whole host is a
 * canonical IPv4 address.
 */
export function hostParserKeeps(url: string, start: number, lastLabel: number, end: number): boolean {
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
export function fastParts(url: string): Parts | null {
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
export function whatwgParts(url: string): Parts | string {
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
