/**
 * The bundled demo web of the quick start (`archiver demo`): three hosts of
 * about a dozen articles each on 127.0.0.2–4, on a fixed port so that
 * profiles/demo.json can name its seeds.
 */
import { FixtureWeb } from './fixture-web.js';

/** Demo sizes, shared with profiles/demo.json's expectations. */
export const DEMO_WEB = { hosts: 3, pagesPerHost: 12, firstAddress: 2, seed: 1 } as const;

/** Starts the demo web on `port` (all hosts share it): seeds are http://127.0.0.2:PORT/ … 127.0.0.4. */
export function startDemoWeb(port: number): Promise<FixtureWeb> {
  return FixtureWeb.start({ ...DEMO_WEB, port });
}
