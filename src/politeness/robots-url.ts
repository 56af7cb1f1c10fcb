/**
 * Where a URL's robots.txt lives and which robots state it shares. RFC 9309
 * scopes robots.txt to scheme + host + port, so http and https of one host,
 * or two ports, have separate files and separate entries in the store.
 */
import { ArchiverError } from '../core/errors.js';

/** The URL has no robots.txt: unparseable, or not http(s). */
export class RobotsUrlError extends ArchiverError {
  readonly url: string;
  constructor(url: string, options?: { cause?: unknown }) {
    super('ARCHIVER_ROBOTS_URL', `no robots.txt applies to ${JSON.stringify(url)}`, options);
    this.url = url;
  }
}

function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new RobotsUrlError(url, { cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new RobotsUrlError(url);
  return parsed;
}

/** `scheme://authority/robots.txt` (userinfo dropped, default port omitted). */
export function robotsTxtUrl(url: string): string {
  const parsed = parseHttpUrl(url);
  return `${parsed.protocol}//${parsed.host}/robots.txt`;
}

/** The robots store key: `scheme://host:port`, port always spelled out. */
export function originOf(url: string): string {
  const parsed = parseHttpUrl(url);
  const port = parsed.port !== '' ? parsed.port : parsed.protocol === 'https:' ? '443' : '80';
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}
