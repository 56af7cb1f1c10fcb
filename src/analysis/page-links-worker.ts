/**
 * The program of the analysis' link-extraction threads (page-links-pool.ts):
 * tokenizes the pages it is sent and resolves their links, in the
 * BatchedWorker protocol.
 */
import { parentPort } from 'node:worker_threads';
import { pageLinksHere, type PageLinksRequest } from './page-links.js';

parentPort?.on('message', (requests: { id: number; input: PageLinksRequest }[]) => {
  const replies = requests.map(({ id, input }) => {
    try {
      return { id, output: pageLinksHere(input.html, input.url) };
    } catch (err) {
      return { id, error: err instanceof Error ? err.message : String(err) };
    }
  });
  parentPort?.postMessage(replies);
});
