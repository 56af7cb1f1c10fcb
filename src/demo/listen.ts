/** Listening on one loopback address, shared by the demo, fixture and hostile webs. */
import type { Server } from 'node:http';
import type { Server as TcpServer } from 'node:net';

/** Listens on `address:port` (0 = any free port) and resolves with the bound port. */
export function listenOne(server: Server | TcpServer, address: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : port);
    });
  });
}
