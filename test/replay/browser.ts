/**
 * Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
 * for the replay tests: a fresh profile directory per launch, and every
 * request that is not to the replay server is refused and recorded, so a
 * test can assert that replay sent nothing anywhere else.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Frame, type Page } from 'playwright-core';
import type { ReplayServer } from '../../src/replay/replay-server.js';

export const CHROMIUM = '/usr/bin/chromium';

export interface ReplayBrowser {
  context: BrowserContext;
  page: Page;
  /** Requests to anything but the replay server (refused). */
  outside: string[];
  close(): Promise<void>;
}

export async function launch(server: ReplayServer): Promise<ReplayBrowser> {
  const profileDir = await mkdtemp(path.join(os.tmpdir(), 'archiver-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  const allowed = new URL(server.origin).host;
  const outside: string[] = [];
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.host === allowed || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  return {
    context,
    page,
    outside,
    async close() {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

interface PageState {
  ready: string;
  title: string;
  text: string;
  images: Array<{ src: string; naturalWidth: number }>;
}

const PAGE_STATE = `({
  ready: document.readyState,
  title: document.title,
  text: document.body ? document.body.innerText : '',
  images: [...document.images].map((img) => ({ src: img.currentSrc, naturalWidth: img.complete ? img.naturalWidth : -1 })),
})`;

export interface ReplayedPage {
  /** The archived URL the replay frame ended on (after archived redirects). */
  url: string;
  /** The 14-digit timestamp of the capture replayed ('' when the frame URL has none). */
  ts: string;
  title: string;
  text: string;
  images: Array<{ src: string; naturalWidth: number }>;
  frame: Frame;
}

/**
 * Open one archived URL (at timestamp `ts`, 14 digits, when given) in the
 * viewer and wait until its replay frame has rendered a titled page.
 */
export async function openArchived(b: ReplayBrowser, server: ReplayServer, archivedUrl: string, timeoutMs = 20_000, ts?: string): Promise<ReplayedPage> {
  // From a blank page: a change of the fragment alone would keep the previous replay frame around.
  const open = async (): Promise<void> => {
    await b.page.goto('about:blank');
    await b.page.goto(server.viewerUrl(archivedUrl, ts));
  };
  await open();
  const deadline = Date.now() + timeoutMs;
  let last = 'no replay frame';
  // An image the viewer's service worker failed to serve once (seen under a full suite's load: the
  // page complete, one image broken) is loaded again with the page, at most twice; an image
  // missing from the archive stays broken and is returned as such.
  let reloads = 0;
  while (Date.now() < deadline) {
    await b.page.waitForTimeout(200);
    for (const frame of b.page.frames()) {
      const m = /\/(\d{14})?mp_\/(.+)$/.exec(frame.url());
      if (!m) continue;
      try {
        // A string, evaluated in the page: the tests compile without the DOM typings.
        const state = (await frame.evaluate(PAGE_STATE)) as PageState;
        last = `${frame.url()} ${state.ready} "${state.title}"`;
        if (state.ready === 'complete' && state.title !== '' && state.images.every((i) => i.naturalWidth >= 0)) {
          if (state.images.some((i) => i.naturalWidth === 0) && reloads < 2) {
            reloads++;
            await open();
            break;
          }
          return { url: m[2]!, ts: m[1] ?? '', title: state.title, text: state.text, images: state.images, frame };
        }
      } catch (err) {
        last = String(err);
      }
    }
  }
  throw new Error(`replay of ${archivedUrl} did not render: ${last}`);
}
