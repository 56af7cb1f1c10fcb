/**
 * A streaming reader of the sitemap XML grammar (sitemaps.org 0.9): a
 * `<urlset>` of `<url>` entries, or a `<sitemapindex>` of `<sitemap>`
 * entries, each with a `<loc>` and an optional `<lastmod>`. Text is fed in
 * pieces as it is inflated, and memory stays bounded whatever the file:
 * the reader keeps at most one unfinished tag (MAX_TAG_CHARS), the open
 * elements (MAX_DEPTH) and the entry being read (MAX_FIELD_CHARS a field);
 * comments, CDATA sections, processing instructions and a DOCTYPE are
 * passed over as they stream by.
 *
 * It is not a general XML parser, and needs not be: element names are
 * compared by local name (a `sm:loc` is a `loc`) without case, only `loc`
 * and `lastmod` directly inside an entry are read (so an `<image:loc>` of
 * the image extension is not taken for the page), the five predefined
 * entities and character references are decoded. Malformed XML (an end
 * tag that does not close the open element, a document cut short, a tag
 * without end) stops the reading with `error` set; the entries complete
 * before that point stand.
 */

export interface SitemapEntry {
  /** `<loc>`, entities decoded, trimmed. */
  loc: string;
  /** `<lastmod>` as written, trimmed; absent when the entry has none. */
  lastmod?: string;
}

/** The root element: a list of pages, a list of sitemaps, or no sitemap at all. */
export type SitemapXmlKind = 'urlset' | 'sitemapindex' | 'other';

/** Longest tag (name and attributes) read; a longer one is an error. */
export const MAX_TAG_CHARS = 16 * 1024;
/** Longest `<loc>` or `<lastmod>` kept (URLs are under 2,048 by the protocol); a longer entry is skipped. */
export const MAX_FIELD_CHARS = 8 * 1024;
/** Deepest nesting of elements read (a sitemap needs 3, its extensions 4 or 5). */
export const MAX_DEPTH = 32;

type State = 'text' | 'markup' | 'tag' | 'comment' | 'cdata' | 'pi' | 'decl';

const ENTITIES: Readonly<Record<string, string>> = Object.freeze({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" });

export class SitemapXmlScanner {
  /** The root element, once seen (null before). */
  kind: SitemapXmlKind | null = null;
  /** Why reading stopped early on malformed XML; null when it did not. */
  error: string | null = null;
  /** Entries skipped: no `<loc>`, or a field longer than MAX_FIELD_CHARS. */
  skipped = 0;
  readonly #onEntry: (e: SitemapEntry) => boolean;
  #buf = '';
  #pos = 0;
  #state: State = 'text';
  /** Inside a `tag` or `decl`: where scanning resumes, and the open quote (or ''). */
  #scanFrom = 0;
  #quote = '';
  #declDepth = 0;
  readonly #open: string[] = [];
  #rootClosed = false;
  #stopped = false;
  /** The entry being read, and the field whose text is being captured. */
  #entry: { loc: string | null; lastmod: string | null; tooLong: boolean } | null = null;
  #field: 'loc' | 'lastmod' | null = null;
  #value = '';
  /** Raw text of the field since the last tag or CDATA section (entities decoded when it ends). */
  #raw = '';

  /** `onEntry` sees each complete entry; returning false stops the reading (a limit reached). */
  constructor(onEntry: (e: SitemapEntry) => boolean) {
    this.#onEntry = onEntry;
  }

  /** Whether reading has stopped (error, limit, a root that is no sitemap, or the root's end). */
  get done(): boolean {
    return this.#stopped;
  }

  write(text: string): void {
    if (this.#stopped) return;
    // What was read is dropped; positions kept across pieces move with it.
    this.#scanFrom = Math.max(0, this.#scanFrom - this.#pos);
    this.#buf = this.#pos < this.#buf.length ? this.#buf.slice(this.#pos) + text : text;
    this.#pos = 0;
    this.#run();
  }

  /** The end of the document: an element still open means it was cut short. */
  end(): void {
    if (this.#stopped) return;
    if (this.#open.length > 0 || this.#state !== 'text') this.#fail('the document ends inside an element');
    this.#stopped = true;
  }

  #run(): void {
    const buf = this.#buf;
    while (!this.#stopped && this.#pos < buf.length) {
      switch (this.#state) {
        case 'text': {
          const lt = buf.indexOf('<', this.#pos);
          this.#text(buf.slice(this.#pos, lt < 0 ? buf.length : lt));
          if (lt < 0) {
            this.#pos = buf.length;
            return;
          }
          this.#flushRaw();
          this.#pos = lt;
          this.#state = 'markup';
          break;
        }
        case 'markup':
          if (!this.#classify()) return;
          break;
        case 'comment':
          if (!this.#skipTo('-->')) return;
          break;
        case 'pi':
          if (!this.#skipTo('?>')) return;
          break;
        case 'cdata': {
          const end = buf.indexOf(']]>', this.#pos);
          // Keep two characters back: they may begin the terminator.
          const upTo = end < 0 ? Math.max(this.#pos, buf.length - 2) : end;
          this.#capture(buf.slice(this.#pos, upTo));
          this.#pos = upTo;
          if (end < 0) return;
          this.#pos = end + 3;
          this.#state = 'text';
          break;
        }
        case 'decl':
          this.#scanDecl();
          break;
        case 'tag': {
          const end = this.#findTagEnd();
          if (end < 0) {
            if (buf.length - this.#pos > MAX_TAG_CHARS) this.#fail('a tag longer than 16 KiB');
            return;
          }
          const tag = buf.slice(this.#pos + 1, end);
          this.#pos = end + 1;
          this.#state = 'text';
          this.#tag(tag);
          break;
        }
      }
    }
  }

  /** After `<`: which kind of markup, once enough of it is here. */
  #classify(): boolean {
    const rest = this.#buf.slice(this.#pos, this.#pos + 9);
    for (const [opening, state] of [['<!--', 'comment'], ['<![CDATA[', 'cdata']] as const) {
      if (rest.startsWith(opening)) {
        this.#pos += opening.length;
        this.#state = state;
        return true;
      }
      // Could still become this opening: wait for more text.
      if (opening.startsWith(rest)) return false;
    }
    if (rest.length < 2) return false;
    if (rest[1] === '?') {
      this.#pos += 2;
      this.#state = 'pi';
    } else if (rest[1] === '!') {
      this.#pos += 2;
      this.#state = 'decl';
      this.#declDepth = 0;
      this.#quote = '';
    } else {
      this.#state = 'tag';
      this.#scanFrom = this.#pos + 1;
      this.#quote = '';
    }
    return true;
  }

  #skipTo(terminator: string): boolean {
    const end = this.#buf.indexOf(terminator, this.#pos);
    if (end < 0) {
      this.#pos = Math.max(this.#pos, this.#buf.length - (terminator.length - 1));
      return false;
    }
    this.#pos = end + terminator.length;
    this.#state = 'text';
    return true;
  }

  /** `<!DOCTYPE … [ … ]>` and other declarations: to the `>` outside quotes and brackets. */
  #scanDecl(): void {
    const buf = this.#buf;
    for (; this.#pos < buf.length; this.#pos++) {
      const c = buf[this.#pos]!;
      if (this.#quote !== '') {
        if (c === this.#quote) this.#quote = '';
      } else if (c === '"' || c === "'") this.#quote = c;
      else if (c === '[') this.#declDepth++;
      else if (c === ']') this.#declDepth--;
      else if (c === '>' && this.#declDepth <= 0) {
        this.#pos++;
        this.#state = 'text';
        return;
      }
    }
  }

  /** The `>` closing the tag at #pos, outside attribute quotes; -1 when not here yet. */
  #findTagEnd(): number {
    const buf = this.#buf;
    let i = Math.max(this.#scanFrom, this.#pos + 1);
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (this.#quote !== '') {
        if (buf[i] === this.#quote) this.#quote = '';
      } else if (c === 0x22 || c === 0x27) this.#quote = buf[i]!;
      else if (c === 0x3e) return i;
    }
    this.#scanFrom = i;
    return -1;
  }

  #tag(tag: string): void {
    if (tag.startsWith('/')) return this.#endTag(localName(tag.slice(1)));
    const selfClosing = tag.endsWith('/');
    const name = localName(selfClosing ? tag.slice(0, -1) : tag);
    if (name === '') return this.#fail('a tag without a name');
    this.#startTag(name);
    if (selfClosing && !this.#stopped) this.#endTag(name);
  }

  #startTag(name: string): void {
    const depth = this.#open.length;
    if (depth === 0) {
      if (this.#rootClosed) return this.#fail('a second root element');
      this.kind = name === 'urlset' || name === 'sitemapindex' ? name : 'other';
      // Not a sitemap: nothing more to read here.
      if (this.kind === 'other') {
        this.#stopped = true;
        return;
      }
    } else if (depth >= MAX_DEPTH) return this.#fail(`elements nested deeper than ${MAX_DEPTH}`);
    this.#open.push(name);
    if (depth === 1 && name === (this.kind === 'urlset' ? 'url' : 'sitemap')) this.#entry = { loc: null, lastmod: null, tooLong: false };
    else if (depth === 2 && this.#entry !== null && (name === 'loc' || name === 'lastmod')) {
      this.#field = name;
      this.#value = '';
      this.#raw = '';
    }
  }

  #endTag(name: string): void {
    const open = this.#open.pop();
    if (open === undefined || open !== name) return this.#fail(`</${name}> does not close <${open ?? 'nothing'}>`);
    const depth = this.#open.length;
    if (depth === 2 && this.#field !== null) {
      this.#flushRaw();
      const value = this.#value.trim();
      if (this.#value.length > MAX_FIELD_CHARS) this.#entry!.tooLong = true;
      else if (this.#field === 'loc') this.#entry!.loc = value;
      else this.#entry!.lastmod = value;
      this.#field = null;
      this.#value = '';
    } else if (depth === 1 && this.#entry !== null) {
      const { loc, lastmod, tooLong } = this.#entry;
      this.#entry = null;
      if (loc === null || loc === '' || tooLong) this.skipped++;
      else if (!this.#onEntry(lastmod ? { loc, lastmod } : { loc })) this.#stopped = true;
    } else if (depth === 0) {
      this.#rootClosed = true;
      this.#stopped = true;
    }
  }

  #text(text: string): void {
    if (this.#field !== null && text !== '') {
      // Bounded: past the cap the entry is skipped anyway; one more character marks it.
      if (this.#value.length + this.#raw.length <= MAX_FIELD_CHARS) this.#raw += text.slice(0, MAX_FIELD_CHARS + 1);
    }
  }

  #capture(literal: string): void {
    if (this.#field !== null && this.#value.length <= MAX_FIELD_CHARS) this.#value += literal.slice(0, MAX_FIELD_CHARS + 1);
  }

  /** Raw text ends at markup: its entities are whole now. */
  #flushRaw(): void {
    if (this.#raw === '') return;
    this.#value += decodeEntities(this.#raw);
    this.#raw = '';
  }

  #fail(why: string): void {
    this.error ??= why;
    this.#stopped = true;
  }
}

/** `sm:loc attr="…"` → `loc`, lower-cased. */
function localName(tag: string): string {
  const m = /^\s*([^\s/>]*)/.exec(tag);
  const qname = (m?.[1] ?? '').toLowerCase();
  const colon = qname.lastIndexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

/** The five predefined entities and character references; anything else is left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,4});/g, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
