/**
 * Turns URL strings into dense integer ids (0, 1, 2 …) so the graph can live
 * in typed arrays. Every URL seen — pages, link targets, redirect targets — is
 * interned once; the id is an index into `urls`.
 *
 * Why a list of Maps: V8 refuses a Map with more than 2^24 (16,777,216)
 * entries, and a crawl of a few million pages easily links to more distinct
 * URLs than that. When the newest Map is full another is started. Below the
 * limit — the common case — a lookup is one Map probe; hashing the key into
 * shards up front measured twice as slow.
 */
export class UrlInterner {
  private readonly maps: Map<string, number>[] = [new Map()];
  /** id → URL. */
  readonly urls: string[] = [];

  /** @param mapCapacity entries per Map before another is started; below V8's 2^24. */
  constructor(private readonly mapCapacity = 16_000_000) {}

  get size(): number {
    return this.urls.length;
  }

  /** The id of `url`, assigning the next free id when it is new. */
  intern(url: string): number {
    const known = this.lookup(url);
    if (known >= 0) return known;
    let last = this.maps[this.maps.length - 1]!;
    if (last.size >= this.mapCapacity) {
      last = new Map();
      this.maps.push(last);
    }
    const id = this.urls.length;
    this.urls.push(url);
    last.set(url, id);
    return id;
  }

  /** The id of `url`, or -1 when it was never interned. */
  lookup(url: string): number {
    for (let i = 0; i < this.maps.length; i++) {
      const id = this.maps[i]!.get(url);
      if (id !== undefined) return id;
    }
    return -1;
  }
}
