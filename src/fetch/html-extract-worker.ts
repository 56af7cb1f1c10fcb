/**
 * The program of the HTML extraction thread (html-extract-thread.ts): links,
 * title, meta robots and visible text of the pages it is sent, in the
 * BatchedWorker protocol. Plain data both ways, so structured cloning
 * carries it.
 */
import { parentPort } from 'node:worker_threads';
import { extractHtml, type HtmlExtraction } from './link-extractor.js';

export interface HtmlExtractRequest {
  html: string;
  url: string;
}

type Reply = { id: number; output: HtmlExtraction } | { id: number; error: string };

parentPort?.on('message', (requests: { id: number; input: HtmlExtractRequest }[]) => {
  const replies = requests.map(({ id, input }): Reply => {
    try {
      return { id, output: extractHtml(input.html, input.url) };
    } catch (err) {
      return { id, error: err instanceof Error ? err.message : String(err) };
    }
  });
  parentPort?.postMessage(replies);
});
