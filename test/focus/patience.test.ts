/**
 * Patience: a link waits while links scoring far better are being claimed,
 * and never for long once only poor ones are left (the window forgets).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Patience, RATIO, WINDOW_CLAIMS, WINDOW_MS } from '../../src/focus/patience.js';

describe('patience', () => {
  it('lets the first claim and the good ones go, holds the poor ones among good ones', () => {
    const p = new Patience();
    assert.equal(p.waits(0.1, 0), false, 'nothing claimed yet: no bar');
    for (let i = 0; i < 10; i++) assert.equal(p.waits(0.8, i), false);
    assert.equal(p.waits(0.8 * RATIO + 0.01, 20), false, 'close enough to the bar');
    assert.equal(p.waits(0.3, 21), true, 'far below what is being claimed');
  });

  it('brings the bar down once only poor links are claimed', () => {
    const p = new Patience();
    for (let i = 0; i < 20; i++) p.waits(0.9, i);
    let t = 100;
    let waited = 0;
    while (p.waits(0.2, t)) {
      waited++;
      t += 200;
    }
    assert.ok(waited > 0 && t - 100 <= WINDOW_MS + 200, `waited ${waited} times, ${t - 100} ms`);
  });

  it('forgets beyond its window of claims, however fast they come', () => {
    const p = new Patience();
    for (let i = 0; i < WINDOW_CLAIMS; i++) p.waits(0.9, 0);
    let n = 0;
    while (p.waits(0.2, 0)) n++;
    assert.ok(n > 0 && n < WINDOW_CLAIMS, `${n}`);
  });
});
