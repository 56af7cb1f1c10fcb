/**
 * Starts the crawl's Chromium: the executable as named (a path, or a name
 * looked up on the PATH), headless, driven by playwright-core over its
 * pipe. Chromium quits by itself when that pipe closes, so a crawl that
 * dies — SIGKILL included — leaves no browser behind (test/browser/
 * chromium-lifetime.test.ts checks it). playwright-core is loaded only
 * here, only when a crawl renders pages.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { BrowserUnavailableError } from './browser-errors.js';

/**
 * The browser never touches the network itself (every request is
 * intercepted), so nothing it would do on its own is wanted: no background
 * fetches, no QUIC, no lazy loading (a lazy image must load once scrolled to).
 * A request that slips past interception — a page's timer firing while its
 * tab closes was seen doing so — goes to a proxy on a port nothing serves,
 * loopback included, and fails.
 */
const CHROMIUM_ARGS = [
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-lazy-loading',
  '--mute-audio',
];

/** The executable's absolute path, or BrowserUnavailableError. */
export async function resolveExecutable(executable: string, envPath = process.env['PATH'] ?? ''): Promise<string> {
  const candidates = executable.includes('/') ? [path.resolve(executable)] : envPath.split(path.delimiter).filter((d) => d !== '').map((d) => path.join(d, executable));
  for (const file of candidates) {
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // The next directory of the PATH.
    }
  }
  throw new BrowserUnavailableError(executable, executable.includes('/') ? 'no executable file there' : 'not found on the PATH');
}

/** Launches Chromium; BrowserUnavailableError when it does not start. */
export async function launchChromium(executablePath: string, shownName: string): Promise<Browser> {
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    throw new BrowserUnavailableError(shownName, 'the playwright-core package is missing', { cause: err });
  }
  try {
    return await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 60_000, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    throw new BrowserUnavailableError(shownName, `it did not start: ${first.slice(0, 200)}`, { cause: err });
  }
}
