/**
 * A page that holds a crawl open: a loopback server whose `/held` answers
 * only once the test releases it (robots.txt is a 404, anything else a
 * small page). A crawl seeded with it cannot end while the request is in
 * flight, so a test that needs the crawl running waits for `arrived` — an
 * event — instead of hoping a slow fixture is still slow enough on a
 * loaded machine. Profiles using it need a fetchTimeoutMs longer than the
 * test holds it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldPage {
  /** The held URL, to seed a crawl with. */
  readonly url: string;
  readonly origin: string;
  /** Resolves when the held request has arrived (the crawl is fetching it). */
  readonly arrived: Promise<void>;
  /** How many times /held was asked for. */
  requests(): number;
  /** Answer the held request(s), and any later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldPage(host = '127.0.0.1'): Promise<HeldPage> {
  let released = false;
  let count = 0;
  const waiting: ServerResponse[] = [];
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const answer = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>held</title><p>held until the test let go</p>');
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    if (req.url !== '/held') {
      answer(res);
      return;
    }
    count++;
    arrive();
    if (released) answer(res);
    else waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  const release = (): void => {
    released = true;
    for (const res of waiting.splice(0)) answer(res);
  };
  return {
    url: `${origin}/held`,
    origin,
    arrived,
    requests: () => count,
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
