/**
 * Collects captures from the WARC reader and, once everything is read, turns
 * them into the page link graph defined in issue 3:
 * - nodes: URLs with a 2xx HTML capture (a revisit of one counts);
 * - edges: page → link target, where a target captured as a 3xx is followed
 *   along its captured redirect chain to the final captured page; only
 *   targets that are nodes are kept; duplicates collapse; self-loops dropped
 *   unless asked for.
 * Links can point at pages captured later in the archive, so edges are kept
 * by URL id while reading and mapped to node ids only at the end.
 */
import { buildCsr, EdgeList, type Csr } from './csr.js';
import { normalizeCaptureUrl } from './link-extract.js';
import { UrlInterner } from './url-interner.js';
import type { CaptureSink } from './warc-reader.js';

export interface LinkGraph extends Csr {
  /** Node id → URL. */
  urls: string[];
  /** Node id → page title ('' when none). */
  titles: string[];
  /** Links from pages to URLs with no capture at all, counted once per page capture and URL. */
  uncapturedLinks: number;
  /** Distinct URLs linked to but never captured. */
  uncapturedUrls: number;
  /** Links to URLs captured but not pages (images, 404s, redirects to nowhere). */
  nonPageLinks: number;
  /**
   * Revisits of another URL's payload (or whose URL has no response of its
   * own among the inputs): re-read from the original record, or left
   * without links and title because the original is not among the inputs.
   */
  revisits: { fromOriginal: number; unresolved: number };
}

/** A revisit that needs its original record read for its links and title (revisit-originals.ts). */
export interface PendingRevisit {
  url: string;
  /** The URL whose capture holds the payload (WARC-Refers-To-Target-URI, or the revisit's own). */
  refersTo: string;
  /** WARC-Payload-Digest of the revisit, to tell the original among several captures of `refersTo`. */
  digest: string | null;
  /** The revisit's HTTP head says 2xx HTML (true), or it has none (null: a page when the original is). */
  isPage: boolean | null;
}

export interface GraphBuildOptions {
  keepSelfLoops: boolean;
  /** Longer captured redirect chains are treated as loops; default 20 (browsers stop near 20). */
  maxRedirectHops: number;
}

const NONE = -1;

/** A growable Int32Array indexed by URL id, defaulting to NONE. */
class IdTable {
  data = new Int32Array(1024).fill(NONE);
  set(i: number, v: number): void {
    if (i >= this.data.length) {
      let cap = this.data.length;
      while (cap <= i) cap *= 2;
      const n = new Int32Array(cap).fill(NONE);
      n.set(this.data);
      this.data = n;
    }
    this.data[i] = v;
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : NONE;
  }
}

export class LinkGraphBuilder implements CaptureSink {
  private readonly interner = new UrlInterner();
  /** URL id → 1 if captured as a page (set to 1 in `isPage`). */
  private readonly isPage = new IdTable();
  /** URL id → 1 if it has any capture (page or not). */
  private readonly wasCaptured = new IdTable();
  private readonly redirectTo = new IdTable();
  private readonly titles = new Map<number, string>();
  private readonly edges = new EdgeList(1 << 16);
  /** Revisits whose page-ness or links come from what they refer to: [url id, refers-to id, isPage?1:0]. */
  private readonly revisits: number[] = [];
  /** URL id → 1 if a response (not a revisit) of it was read as a page. */
  private readonly pageResponse = new IdTable();
  /** Payload digests of the revisits, by their place in `revisits` / 3. */
  private readonly revisitDigests: (string | null)[] = [];
  /** Reused per page to collapse repeated links early. */
  private readonly seenInPage = new Set<number>();

  captured(url: string): void {
    this.wasCaptured.set(this.interner.intern(url), 1);
  }

  /** The id a URL is known by here (assigned when new). */
  idOf(url: string): number {
    return this.interner.intern(url);
  }

  page(url: string, title: string, links: string[]): void {
    const u = this.interner.intern(url);
    this.isPage.set(u, 1);
    this.pageResponse.set(u, 1);
    if (title !== '' && !this.titles.has(u)) this.titles.set(u, title);
    const seen = this.seenInPage;
    seen.clear();
    for (const link of links) {
      const v = this.interner.intern(link);
      if (seen.has(v)) continue;
      seen.add(v);
      this.edges.push(u, v);
    }
  }

  redirect(url: string, location: string): void {
    const u = this.interner.intern(url);
    const v = this.interner.intern(location);
    if (u !== v) this.redirectTo.set(u, v);
  }

  revisit(url: string, refersTo: string | null, isPage: boolean | null, digest: string | null = null): void {
    const u = this.interner.intern(url);
    if (isPage === true) this.isPage.set(u, 1);
    const ref = refersTo === null ? null : normalizeCaptureUrl(refersTo.replace(/^<(.*)>$/, '$1'));
    const r = ref === null ? u : this.interner.intern(ref.href);
    this.revisits.push(u, r, isPage === true ? 1 : isPage === null ? 2 : 0);
    this.revisitDigests.push(digest);
  }

  /**
   * The revisits whose links and title must come from their original
   * record: those of another URL's payload, and those whose URL has no
   * page response of its own among what was read. One per URL.
   */
  pendingRevisits(): PendingRevisit[] {
    const out: PendingRevisit[] = [];
    const taken = new Set<number>();
    for (let i = 0; i < this.revisits.length; i += 3) {
      const [u, r, page] = [this.revisits[i]!, this.revisits[i + 1]!, this.revisits[i + 2]!];
      if (page === 0 || taken.has(u) || (r === u && this.pageResponse.get(u) === 1)) continue;
      taken.add(u);
      out.push({
        url: this.interner.urls[u]!,
        refersTo: this.interner.urls[r]!,
        digest: this.revisitDigests[i / 3] ?? null,
        isPage: page === 1 ? true : null,
      });
    }
    return out;
  }

  build(opts: GraphBuildOptions): LinkGraph {
    const urlCount = this.interner.size;
    // A revisit with no usable HTTP head is a page exactly when what it refers to is.
    for (let i = 0; i < this.revisits.length; i += 3) {
      const [u, r, page] = [this.revisits[i]!, this.revisits[i + 1]!, this.revisits[i + 2]!];
      if (page === 2 && this.isPage.get(r) === 1) this.isPage.set(u, 1);
    }
    const nodeOf = new Int32Array(urlCount).fill(NONE);
    const urls: string[] = [];
    const titles: string[] = [];
    for (let id = 0; id < urlCount; id++) {
      if (this.isPage.get(id) !== 1) continue;
      nodeOf[id] = urls.length;
      urls.push(this.interner.urls[id]!);
      titles.push(this.titles.get(id) ?? '');
    }
    const final = this.resolveRedirects(nodeOf, opts.maxRedirectHops);

    const src = new Int32Array(this.edges.length);
    const dst = new Int32Array(this.edges.length);
    let m = 0;
    let uncapturedLinks = 0;
    let nonPageLinks = 0;
    const uncaptured = new Uint8Array(urlCount);
    let uncapturedUrls = 0;
    for (let i = 0; i < this.edges.length; i++) {
      const s = nodeOf[this.edges.src[i]!]!;
      const target = this.edges.dst[i]!;
      const d = final[target]!;
      if (d === NONE && this.wasCaptured.get(target) === 1) {
        nonPageLinks++;
        continue;
      }
      if (d === NONE) {
        uncapturedLinks++;
        if (uncaptured[target] === 0) {
          uncaptured[target] = 1;
          uncapturedUrls++;
        }
        continue;
      }
      src[m] = s;
      dst[m] = d;
      m++;
    }
    const csr = buildCsr(urls.length, src, dst, m, opts.keepSelfLoops);
    return { ...csr, urls, titles, uncapturedLinks, uncapturedUrls, nonPageLinks, revisits: { fromOriginal: 0, unresolved: 0 } };
  }

  /** URL id → node id it finally lands on (itself if a page, else along captured redirects), or NONE. */
  private resolveRedirects(nodeOf: Int32Array, maxHops: number): Int32Array {
    const final = nodeOf.slice();
    for (let id = 0; id < final.length; id++) {
      if (final[id] !== NONE || this.redirectTo.get(id) === NONE) continue;
      let cur = id;
      let result = NONE;
      for (let hop = 0; hop < maxHops; hop++) {
        const next = this.redirectTo.get(cur);
        if (next === NONE) break;
        if (nodeOf[next] !== NONE) {
          result = nodeOf[next]!;
          break;
        }
        cur = next;
      }
      final[id] = result;
    }
    return final;
  }
}
