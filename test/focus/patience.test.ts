/**
 * Patience: a link waits while links scoring far better are being fetched,
 * and never for long once only poor ones are left (the window of fetched
 * scores empties); the window stretches to twice the politeness delay.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Patience, RATIO, WINDOW_CLAIMS, WINDOW_MS } from '../../src/focus/patience.js';

describe('patience', () => {
  it('lets the first claim and the good ones go, holds the poor ones among good ones', () => {
    const p = new Patience();
    assert.equal(p.waits(0.1, 0), false, 'nothing fetched yet: no bar');
    for (let i = 1; i <= 10; i++) assert.equal(p.waits(0.8, i), false);
    assert.equal(p.waits(0.8 * RATIO + 0.01, 20), false, 'close enough to the bar');
    assert.equal(p.waits(0.3, 21), true, 'far below what is being fetched');
  });

  it('waits no longer than the window once only poor links are left', () => {
    const p = new Patience();
    for (let i = 0; i < 20; i++) p.waits(0.9, i);
    let t = 100;
    while (p.waits(0.2, t)) t += 200;
    assert.ok(t > WINDOW_MS && t <= WINDOW_MS + 200 + 20, `${t} ms`);
    assert.equal(p.waits(0.2, t + 1), false, 'then the poor ones are the bar');
  });

  it('keeps a promising host in its window across its politeness delay', () => {
    const fast = new Patience(0);
    const polite = new Patience(3000);
    for (const p of [fast, polite]) p.waits(0.9, 0);
    assert.equal(fast.waits(0.2, 2500), false, 'a 2 s window has forgotten it');
    assert.equal(polite.waits(0.2, 2500), true, 'a 6 s window has not');
  });

  it('keeps at most its window of fetches, however fast they come', () => {
    const p = new Patience();
    for (let i = 0; i < WINDOW_CLAIMS; i++) p.waits(0.9, 0);
    for (let i = 0; i < WINDOW_CLAIMS; i++) p.waits(0.75, 1);
    assert.equal(p.waits(0.65, 2), false, 'the older fetches at 0.9 are out of the window');
  });
});
