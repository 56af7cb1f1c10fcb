/**
 * The console's speed chart at low rates (issue 28): one-second samples of a
 * crawl doing 0.3 URIs/s read 0, 0, 1, 0, 0, 1…, drawn as a 0/1 sawtooth.
 * The page's smoothing (src/console/app/chart.js, browser code imported
 * here as it is served) averages over a window holding enough events.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Point = { t: number; v: number };
const chart = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../src/console/app/chart.js');
const { smoothRates } = (await import(pathToFileURL(chart).href)) as { smoothRates: (p: Point[]) => Point[] };

describe('smoothRates', () => {
  it('turns a 0/1 sawtooth at one URI every 3 s into a steady line near 1/3', () => {
    const raw = Array.from({ length: 300 }, (_, i) => ({ t: i * 1000, v: i % 3 === 0 ? 1 : 0 }));
    const smooth = smoothRates(raw).slice(60);
    for (const p of smooth) assert.ok(Math.abs(p.v - 1 / 3) < 0.05, `${p.t}: ${p.v}`);
  });

  it('follows a fast crawl closely (a window of a few seconds)', () => {
    const raw = Array.from({ length: 60 }, (_, i) => ({ t: i * 1000, v: i < 30 ? 50 : 10 }));
    const smooth = smoothRates(raw);
    assert.equal(smooth[20]!.v, 50);
    assert.equal(smooth[40]!.v, 10, 'ten seconds after the drop, only the new rate');
  });
});
