/** Whether `url` parses as an absolute http: or https: URL (a seed added to a running crawl must). */
export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
