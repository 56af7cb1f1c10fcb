/**
 * What an override's `match` covers, and how specific it is. Two spellings:
 * - a host, `example.org` or `127.0.0.1:8080`: the host and its subdomains,
 *   on any port or only the one given, as `scope.hosts` reads its entries;
 * - a SURT prefix, `http://(org,example,)/blog`: every URL whose SURT
 *   (src/url/surt.ts `schemeSurt`, https read as http) starts with it.
 * Both rank by the length of their SURT prefix (a host ranks as
 * `http://(org,example,`), so the most specific match wins. A match is
 * host-level when it names whole hosts (a host, or a SURT prefix that ends
 * at the host: `http://(org,example,` or `http://(org,example,)/`), and only
 * those carry per-host settings (politeness, robots).
 */
import { schemeSurt, surtAuthorityPrefix } from '../url/surt.js';

export interface OverrideMatch {
  /** As written in the profile. */
  readonly text: string;
  /** Names whole hosts (may carry politeness and robots). */
  readonly hostLevel: boolean;
  /** Length of its SURT prefix: the longer, the more specific. */
  readonly rank: number;
  /** Whether it covers the URL (`surt` is its `schemeSurt`). */
  coversUrl(url: ParsedTarget): boolean;
  /** Whether a host-level match covers the host (`port` null: the scheme's default). */
  coversHost(host: HostTarget): boolean;
}

/** A URL as matches read it. */
export interface ParsedTarget extends HostTarget {
  surt: string;
}

/** A host as matches read it: lower-case name, port (null: 80/443), and its SURT authority `http://(org,example,` (+ `:port`) `)`. */
export interface HostTarget {
  hostname: string;
  port: string | null;
  authority: string;
}

const HOST_ENTRY = /^(\[[0-9a-fA-F:.]+\]|[^\s/:()[\]]+)(?::(\d{1,5}))?$/;
const SURT_PREFIX = /^(https?):\/\/\(([^\s]*)$/i;
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The match `text` stands for, or null when it is neither a host nor a SURT prefix. */
export function parseOverrideMatch(text: string): OverrideMatch | null {
  const surt = SURT_PREFIX.exec(text);
  if (surt !== null) return surtPrefixMatch(text, surt[2]!);
  if (text.includes('(')) return null;
  const host = HOST_ENTRY.exec(text);
  if (host === null) return null;
  const hostname = asciiHost(host[1]!.toLowerCase());
  if (hostname === null) return null;
  return hostMatch(text, hostname, host[2] ?? null);
}

function hostMatch(text: string, hostname: string, port: string | null): OverrideMatch {
  const literal = DOTTED_QUAD.test(hostname) || hostname.startsWith('[');
  const prefix = surtAuthorityPrefix(hostname, port);
  const anyPort = port === null;
  const wantPort = anyPort ? null : normalPort(port);
  const covers = (h: HostTarget): boolean => {
    if (!anyPort && h.port !== wantPort) return false;
    if (h.hostname === hostname) return true;
    return !literal && h.hostname.endsWith(`.${hostname}`);
  };
  return Object.freeze({
    text,
    hostLevel: true,
    // With a port the prefix is closed: `http://(org,example,:8080)`.
    rank: prefix.length + (anyPort ? 0 : 1),
    coversUrl: covers,
    coversHost: covers,
  });
}

function surtPrefixMatch(text: string, rest: string): OverrideMatch | null {
  // The authority (up to `)`) is case-free, the path is not; https reads as http.
  const close = rest.indexOf(')');
  const authority = close < 0 ? rest.toLowerCase() : rest.slice(0, close).toLowerCase();
  const path = close < 0 ? '' : rest.slice(close + 1);
  // A URL's SURT has `)/` after the authority: anything else could never match.
  if (authority.includes('(') || (path !== '' && !path.startsWith('/'))) return null;
  // `)` and `)/` both mean "exactly this host".
  const hostLevel = close < 0 || path === '' || path === '/';
  const prefix = `http://(${authority}${close < 0 ? '' : ')'}${hostLevel ? '' : path}`;
  return Object.freeze({
    text,
    hostLevel,
    rank: prefix.length,
    coversUrl: (u: ParsedTarget) => u.surt.startsWith(prefix),
    coversHost: (h: HostTarget) => hostLevel && h.authority.startsWith(prefix),
  });
}

/** A URL as matches read it; null when it is not an http(s) URL. */
export function targetOfUrl(url: string): ParsedTarget | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const surt = schemeSurt(url);
  if (surt === null) return null;
  const hostname = parsed.hostname.toLowerCase();
  const port = normalPort(parsed.port);
  return { hostname, port, authority: `${surtAuthorityPrefix(hostname, port)})`, surt };
}

/**
 * A host as matches read it, from `host`, `host:port` (as URLs write it,
 * or the frontier's `hostname:port` with the port always spelled out).
 */
export function targetOfHost(host: string): HostTarget {
  const m = HOST_ENTRY.exec(host);
  const hostname = (m?.[1] ?? host).toLowerCase();
  const port = normalPort(m?.[2] ?? '');
  return { hostname, port, authority: `${surtAuthorityPrefix(hostname, port)})` };
}

/** 80 and 443 are the schemes' own ports: a host entry without a port, or a URL without one, means them. */
function normalPort(port: string): string | null {
  return port === '' || port === '80' || port === '443' ? null : String(Number(port));
}

/** Punycode for a host written in Unicode, as URL hostnames are; null when no URL could have it. */
function asciiHost(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}
