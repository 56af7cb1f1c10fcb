/**
 * For the console tests: a crawl of the fixture web running in this
 * process with its console on 127.0.0.1 (port 0), and a small client that
 * calls the API with the token, as the page does.
 */
import path from 'node:path';
import { request } from 'node:http';
import { validateProfile } from '../../src/config/load-profile.js';
import { ConsoleServer, type ConsoleServerOptions } from '../../src/console/console-server.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { LiveJob } from '../../src/console/live-job.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export class ConsoleClient {
  readonly origin: string;
  readonly token: string | null;

  constructor(origin: string, token: string | null) {
    this.origin = origin;
    this.token = token;
  }

  async call(method: 'GET' | 'POST', pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${this.origin}${pathAndQuery}`, {
      method,
      headers: {
        ...(this.token !== null ? { Authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  get(pathAndQuery: string): Promise<Answer> {
    return this.call('GET', pathAndQuery);
  }

  post(pathAndQuery: string, body: unknown = {}): Promise<Answer> {
    return this.call('POST', pathAndQuery, body);
  }
}

/** A raw request with any Host header (fetch sets its own). */
export function rawRequest(origin: string, opts: { method?: string; path: string; headers: Record<string, string> }): Promise<{ status: number; body: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export interface RunningConsole {
  crawl: Crawl;
  server: ConsoleServer;
  client: ConsoleClient;
  catalog: JobCatalog;
  dir: string;
  name: string;
  close(): Promise<void>;
}

/** Starts a crawl of `seeds` into `root/name` and its console (run --console's wiring). */
export async function startCrawlConsole(root: string, name: string, seeds: readonly string[], overrides: Record<string, unknown> = {}, server: Partial<ConsoleServerOptions> = {}): Promise<RunningConsole> {
  const dir = path.join(root, name);
  const profile = validateProfile(testProfileJson(name, seeds, dir, overrides), name);
  const catalog = new JobCatalog({ root, only: name });
  const console = await ConsoleServer.start({ catalog, port: 0, ...server });
  const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true });
  catalog.attach(new LiveJob({ name, dir, crawl }));
  return {
    crawl,
    server: console,
    client: new ConsoleClient(console.origin, console.token),
    catalog,
    dir,
    name,
    async close() {
      if (crawl.status().state !== 'finished') {
        crawl.stop({ abandonInFlight: true });
        await crawl.done.catch(() => undefined);
      }
      await console.close();
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** One Server-Sent Events stream read as it comes: event name → the data of each, in order. */
export interface EventReader {
  readonly events: Map<string, Array<Record<string, unknown>>>;
  /** Stop reading (the request is aborted) and wait for the reader to end. */
  close(): Promise<void>;
}

export async function readEvents(origin: string, token: string, pathAndQuery = '/api/events'): Promise<EventReader> {
  const controller = new AbortController();
  const res = await fetch(`${origin}${pathAndQuery}`, { headers: { Authorization: `Bearer ${token}` }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`${pathAndQuery} answered ${res.status}`);
  const events = new Map<string, Array<Record<string, unknown>>>();
  const reading = (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (name !== undefined && data !== undefined) events.set(name, [...(events.get(name) ?? []), JSON.parse(data) as Record<string, unknown>]);
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    events,
    async close() {
      controller.abort();
      await reading;
    },
  };
}
