/**
 * The host of a URL, in each of the forms the crawler uses, all here:
 * - `hostOf`: `host[:port]` as URLs write it (default port dropped), the
 *   hosts report's key; `hostOfHref` the same for a URL already serialized
 *   by the WHATWG parser, without parsing it again;
 * - `hostnameOf`: the host name alone;
 * - `hostPortOf`: `hostname:port` with the port always spelled out, the
 *   unit of politeness (host gate, host health), and `hostPortOfOrigin`
 *   from an origin; `urlHostOf` takes that back to the URL form.
 */

const DEFAULT_PORTS: Readonly<Record<string, string>> = Object.freeze({ 'http:': '80', 'https:': '443', 'ftp:': '21', 'ws:': '80', 'wss:': '443' });

/** `host[:port]` of a URL as URLs write it, lower case; null when it does not parse. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/** The host name of a URL, lower case, without port; null when it does not parse. */
export function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The host of a serialized http(s) URL, port included when the URL has one:
 * what `new URL(href).host` gives, without parsing the URL again (a million
 * pages would pay a full parse each). A serialized special URL always has a
 * path starting with '/' right after the authority, and an '@' inside the
 * userinfo is percent-encoded, so the host is what follows the last '@'.
 */
export function hostOfHref(href: string): string {
  const start = href.indexOf('//') + 2;
  let end = href.indexOf('/', start);
  if (end < 0) end = href.length;
  const at = href.lastIndexOf('@', end);
  return href.slice(at >= start ? at + 1 : start, end);
}

/** `hostname:port` with the port always spelled out, the unit of politeness. */
export function hostPortOf(url: URL): string {
  const port = url.port !== '' ? url.port : (DEFAULT_PORTS[url.protocol] ?? '0');
  return `${url.hostname.toLowerCase()}:${port}`;
}

/** `host:port` of an origin `scheme://host:port` (as robots.txt prerequisites name them). */
export function hostPortOfOrigin(origin: string): string {
  return origin.slice(origin.indexOf('//') + 2);
}

/** `host:port` with the scheme's default port dropped (80 or 443), as URL hosts are written. */
export function urlHostOf(hostPort: string): string {
  return hostPort.replace(/:(80|443)$/, '');
}
