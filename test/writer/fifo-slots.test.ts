/**
 * FifoSlots: the cap on captures compressing ahead of the WARC write queue.
 * Waiters must be served in call order (the queue's head must never wait on
 * a slot held by a capture behind it) and never more than the cap at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FifoSlots } from '../../src/writer/fifo-slots.js';

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('FifoSlots', () => {
  it('holds at most `slots` at once and serves waiters in call order', async () => {
    const slots = new FifoSlots(2);
    const got: number[] = [];
    for (let i = 0; i < 5; i++) void slots.acquire().then(() => got.push(i));
    await ticks(3);
    assert.deepEqual(got, [0, 1]);
    slots.release();
    await ticks(3);
    assert.deepEqual(got, [0, 1, 2]);
    slots.release();
    slots.release();
    await ticks(3);
    assert.deepEqual(got, [0, 1, 2, 3, 4]);
  });

  it('a new caller does not jump ahead of one already waiting', async () => {
    const slots = new FifoSlots(1);
    await slots.acquire();
    const got: string[] = [];
    void slots.acquire().then(() => got.push('first waiter'));
    slots.release();
    // The slot is promised to the waiter: a later acquire must queue behind it.
    void slots.acquire().then(() => got.push('late caller'));
    await ticks(3);
    assert.deepEqual(got, ['first waiter']);
    slots.release();
    await ticks(3);
    assert.deepEqual(got, ['first waiter', 'late caller']);
  });

  it('rejects a cap below one with ARCHIVER_INVALID_OPTION', () => {
    assert.throws(() => new FifoSlots(0), { code: 'ARCHIVER_INVALID_OPTION' });
    assert.throws(() => new FifoSlots(1.5), { code: 'ARCHIVER_INVALID_OPTION' });
  });
});
