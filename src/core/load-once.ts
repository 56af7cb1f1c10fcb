/**
 * A module (or anything else costly) loaded on first use rather than at
 * start-up, once: the first call starts the load, every call gets the same
 * promise. The crawl loads warcio and parse5 this way, when it builds its
 * first record and reads its first page, so its first request (robots.txt,
 * read without them) does not wait for them.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => (loading ??= load());
}
