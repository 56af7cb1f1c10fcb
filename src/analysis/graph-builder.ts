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
  /** Reused per page to collapse repeated links early. */
  private readonly seenInPage = new Set<number>();

  captured(url: string): void {
    this.wasCaptured.set(this.interner.intern(url), 1);
  }

  page(url: string, title: string, links: string[]): void {
    const u = this.interner.intern(url);
    this.isPage.set(u, 1);
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

  revisit(url: string, refersTo: string | null, isPage: boolean | null): void {
    const u = this.interner.intern(url);
    if (isPage === true) this.isPage.set(u, 1);
    const ref = refersTo === null ? null : normalizeCaptureUrl(refersTo.replace(/^<(.*)>$/, '$1'));
    const r = ref === null ? u : this.interner.intern(ref.href);
    if (r !== u || isPage === null) this.revisits.push(u, r, isPage === true ? 1 : 0);
  }

  build(opts: GraphBuildOptions): LinkGraph {
    const urlCount = this.interner.size;
    // A revisit with no usable HTTP head is a page exactly when what it refers to is.
    for (let i = 0; i < this.revisits.length; i += 3) {
      const [u, r] = [this.revisits[i]!, this.revisits[i + 1]!];
      if (this.isPage.get(r) === 1) this.isPage.set(u, 1);
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
    let csr = buildCsr(urls.length, src, dst, m, opts.keepSelfLoops);
    csr = this.inheritRevisitLinks(csr, nodeOf, opts.keepSelfLoops);
    return { ...csr, urls, titles, uncapturedLinks, uncapturedUrls, nonPageLinks };
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

  /**
   * A revisit of a different URL (same payload) has the links of the page it
   * refers to; copy that page's resolved out-edges onto it.
   */
  private inheritRevisitLinks(csr: Csr, nodeOf: Int32Array, keepSelfLoops: boolean): Csr {
    const extra = new EdgeList();
    for (let i = 0; i < this.revisits.length; i += 3) {
      const u = nodeOf[this.revisits[i]!]!;
      const r = nodeOf[this.revisits[i + 1]!]!;
      if (u === NONE || r === NONE || u === r) continue;
      for (let j = csr.offsets[r]!; j < csr.offsets[r + 1]!; j++) extra.push(u, csr.targets[j]!);
    }
    if (extra.length === 0) return csr;
    const m = csr.targets.length + extra.length;
    const src = new Int32Array(m);
    const dst = new Int32Array(m);
    for (let u = 0; u < csr.nodeCount; u++) {
      for (let j = csr.offsets[u]!; j < csr.offsets[u + 1]!; j++) src[j] = u;
    }
    dst.set(csr.targets);
    src.set(extra.src.subarray(0, extra.length), csr.targets.length);
    dst.set(extra.dst.subarray(0, extra.length), csr.targets.length);
    return buildCsr(csr.nodeCount, src, dst, m, keepSelfLoops);
  }
}
