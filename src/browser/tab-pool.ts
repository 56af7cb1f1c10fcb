/**
 * The crawl's tabs: at most `tabs` pages render at once, each in a browser
 * context of its own that serves a few pages and is then closed and made
 * anew (memory stays bounded; Browsertrix reuses a window a few times for
 * the same reason). Chromium is started on first use and started again
 * when it went away (a crash, a kill): the tab in use then fails with
 * BrowserCrashedError and its page is retried by the caller.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { BrowserCrashedError } from './browser-errors.js';

/** Pages one context renders before it is closed and replaced. */
export const PAGES_PER_CONTEXT = 8;

export interface TabPoolOptions {
  tabs: number;
  /** Starts a Chromium (src/browser/chromium.ts). */
  launch(): Promise<Browser>;
  /** Told each time Chromium is started again after it went away. */
  onRestart?(count: number): void;
}

interface Slot {
  context: BrowserContext | null;
  pages: number;
  /** The browser the context belongs to. */
  browser: Browser | null;
}

export class TabPool {
  readonly #o: TabPoolOptions;
  readonly #free: Slot[] = [];
  readonly #waiting: Array<(slot: Slot) => void> = [];
  #browser: Promise<Browser> | null = null;
  #restarts = 0;
  #closed = false;

  constructor(opts: TabPoolOptions) {
    this.#o = opts;
    for (let i = 0; i < opts.tabs; i++) this.#free.push({ context: null, pages: 0, browser: null });
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** Tabs rendering now. */
  get busy(): number {
    return this.#o.tabs - this.#free.length;
  }

  /** Starts Chromium now (so that a crawl that cannot render fails before it begins). */
  async start(): Promise<void> {
    await this.#live();
  }

  /**
   * Runs `use` with a context of its own for one page; the context is
   * replaced after PAGES_PER_CONTEXT pages, or at once if Chromium went away.
   */
  async withTab<T>(use: (context: BrowserContext) => Promise<T>): Promise<T> {
    const slot = await this.#take();
    try {
      const browser = await this.#live();
      if (slot.context === null || slot.browser !== browser || slot.pages >= PAGES_PER_CONTEXT) {
        await slot.context?.close().catch(() => undefined);
        slot.context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1280, height: 900 }, bypassCSP: false });
        slot.browser = browser;
        slot.pages = 0;
      }
      slot.pages++;
      try {
        return await use(slot.context);
      } catch (err) {
        if (!browser.isConnected()) throw new BrowserCrashedError('Chromium went away while rendering a page', { cause: err });
        throw err;
      }
    } finally {
      this.#give(slot);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const browser = this.#browser;
    this.#browser = null;
    if (browser !== null) await (await browser.catch(() => null))?.close().catch(() => undefined);
  }

  /** The running Chromium, started (again) when there is none or it went away. */
  async #live(): Promise<Browser> {
    if (this.#closed) throw new BrowserCrashedError('the browser is closed');
    const current = this.#browser;
    if (current !== null) {
      const b = await current.catch(() => null);
      if (b !== null && b.isConnected()) return b;
      // Another caller may have started the next one meanwhile.
      if (this.#browser !== current) return this.#live();
      this.#restarts++;
      this.#o.onRestart?.(this.#restarts);
    }
    const started = this.#o.launch();
    this.#browser = started;
    return started;
  }

  #take(): Promise<Slot> {
    const slot = this.#free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #give(slot: Slot): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(slot);
    else this.#free.push(slot);
  }
}
