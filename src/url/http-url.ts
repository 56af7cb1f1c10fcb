/** `url` parsed, when it is an absolute http: or https: URL; null otherwise. */
export function httpUrlOf(url: string): URL | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
}

/** Whether `url` parses as an absolute http: or https: URL (a seed added to a running crawl must). */
export function isHttpUrl(url: string): boolean {
  return httpUrlOf(url) !== null;
}
