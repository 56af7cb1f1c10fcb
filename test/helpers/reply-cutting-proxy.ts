/**
 * A TCP proxy on loopback in front of a redis-server that can lose one
 * answer the way a Redis stopped mid-crawl does: the command reaches Redis
 * and runs, and the connection breaks before its reply gets back. A client
 * that sends the command again then runs it twice; a script that is not
 * safe to run twice shows it. Every other byte goes through unchanged, and
 * connections made after the cut (the client's reconnect) are left alone.
 */
import net from 'node:net';

export interface ReplyCuttingProxy {
  /** Where clients connect: `redis://127.0.0.1:PORT/DB`. */
  spec(db?: number): string;
  /**
   * The next command whose bytes hold `needle` goes to Redis; once Redis has
   * answered it (so it ran) the client's connection is cut instead of the
   * answer being passed on. Resolves when it was cut.
   */
  cutAfter(needle: string | Buffer): Promise<void>;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

interface Armed {
  needle: Buffer;
  done: () => void;
}

export async function startReplyCuttingProxy(redisPort: number): Promise<ReplyCuttingProxy> {
  let armed: Armed | null = null;
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(redisPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // Set once this connection carried the armed command: Redis's next bytes are its answer (the test keeps one command in flight).
    let cutting: Armed | null = null;
    client.on('data', (chunk: Buffer) => {
      if (armed !== null && cutting === null && chunk.includes(armed.needle)) {
        cutting = armed;
        armed = null;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutting === null) {
        client.write(chunk);
        return;
      }
      const done = cutting.done;
      cuts++;
      client.destroy();
      upstream.destroy();
      done();
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    spec: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    cutAfter(needle) {
      if (armed !== null) throw new Error('a cut is already armed');
      return new Promise<void>((done) => {
        armed = { needle: Buffer.from(needle), done };
      });
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
