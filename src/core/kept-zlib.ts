/**
 * zlib handles kept for a thread's life and reset between inputs, for the
 * one-shot compressions and decompressions a page costs (three gzip members
 * made, one body inflated). zlib's *Sync calls build a stream object for
 * each input and allocate zlib's state afresh (a deflater's is 256 KiB,
 * fresh pages zeroed), and on the PostgreSQL docs' small pages that was
 * most of their time; a reset keeps the state and clears the hash table
 * only. What comes out is what the *Sync call gives for the same input and
 * options: the same binding does the work, driven the way zlib.js's own
 * synchronous path drives it (`_handle.writeSync`, `_writeState`).
 *
 * Where those internals are not there, `keptZlib` gives null and callers use
 * the *Sync calls. A handle whose input fails (a corrupt body) is closed and
 * made again for the next input. The same driving (`zlibDriver`, `drain`)
 * also makes one stream that goes on across inputs (writer/deflate-file.ts).
 */
import type { Transform as ZlibBase } from 'node:stream';
import { constants, createGunzip, createGzip } from 'node:zlib';

/** The binding's two calls used here (node's lib/zlib.js). */
export interface ZlibBinding {
  reset(): void;
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

/** What a kept handle does: `gzip` at a level 0..9, or `gunzip`. */
export type KeptKind = { gzip: number } | 'gunzip';

/** The input failed in zlib (a corrupt or truncated stream): the caller falls back. */
export class ZlibInputError extends Error {}

/** A zlib stream (Gzip, Gunzip, DeflateRaw…: a Transform) driven through its binding, synchronously, the way zlib.js's own *Sync path drives it. */
export interface ZlibDriver {
  readonly stream: ZlibBase;
  readonly binding: ZlibBinding;
  /** After writeSync: [0] output space left, [1] input left. */
  readonly state: Uint32Array;
}

/** `stream`'s driver, or null (the stream destroyed) where node's zlib does not have the internals used here. */
export function zlibDriver(stream: ZlibBase): ZlibDriver | null {
  const inner = stream as unknown as { _handle?: Partial<ZlibBinding> | null; _writeState?: unknown };
  const binding = inner._handle;
  const state = inner._writeState;
  if (!binding || typeof binding.reset !== 'function' || typeof binding.writeSync !== 'function' || !(state instanceof Uint32Array)) {
    stream.destroy();
    return null;
  }
  // A failing input destroys the stream, which then emits 'error': heard here, seen as `destroyed`.
  stream.on('error', () => {});
  return { stream, binding: binding as ZlibBinding, state };
}

/**
 * All of `input` through the driver's stream with `flush` (Z_NO_FLUSH to
 * go on with the same stream, Z_FINISH to end it), as pieces of `out`, one
 * buffer used again for each: a piece is only good until the next is asked
 * for. Ends once zlib leaves space in `out` (it has taken all of the input,
 * or, inflating, stopped at what follows the stream). Throws ZlibInputError
 * when zlib fails (the stream is then destroyed).
 */
export function* drain(d: ZlibDriver, input: Uint8Array, flush: number, out: Buffer): Generator<Buffer, void, undefined> {
  let inOff = 0;
  let inLeft = input.length;
  for (;;) {
    d.binding.writeSync(flush, input, inOff, inLeft, out, 0, out.length);
    if (d.stream.destroyed) throw new ZlibInputError('zlib failed on the input');
    const outLeft = d.state[0]!;
    const consumed = inLeft - d.state[1]!;
    inOff += consumed;
    inLeft -= consumed;
    const written = out.length - outLeft;
    if (written > 0) yield out.subarray(0, written);
    if (outLeft !== 0) return;
  }
}

/** One zlib stream's binding, reset before each input. */
export class KeptZlib {
  readonly #driver: ZlibDriver;

  private constructor(driver: ZlibDriver) {
    this.#driver = driver;
  }

  /** A handle of this kind, or null where node's zlib does not have the internals used here. */
  static make(kind: KeptKind): KeptZlib | null {
    const driver = zlibDriver(kind === 'gunzip' ? createGunzip() : createGzip({ level: kind.gzip }));
    return driver === null ? null : new KeptZlib(driver);
  }

  /** False once an input failed; make another. */
  get usable(): boolean {
    return !this.#driver.stream.destroyed;
  }

  /**
   * All of `input` through zlib with Z_FINISH, from a reset: one buffer,
   * `firstBytes` long to begin with and doubled as needed. Null when the
   * output would pass `maxBytes`. Throws ZlibInputError when zlib fails on
   * the input (the handle is then not usable).
   */
  whole(input: Uint8Array, firstBytes: number, maxBytes: number = Number.MAX_SAFE_INTEGER): Buffer | null {
    const { stream, binding, state } = this.#driver;
    binding.reset();
    let size = Math.max(64, Math.min(firstBytes, maxBytes + 1));
    let out = Buffer.allocUnsafe(size);
    let written = 0;
    let inOff = 0;
    let inLeft = input.length;
    for (;;) {
      binding.writeSync(constants.Z_FINISH, input, inOff, inLeft, out, written, size - written);
      if (stream.destroyed) throw new ZlibInputError('zlib failed on the input');
      const outLeft = state[0]!;
      const consumed = inLeft - state[1]!;
      inOff += consumed;
      inLeft -= consumed;
      written = size - outLeft;
      if (written > maxBytes) return null;
      // Space left over: zlib has finished (or, inflating, stopped at what follows the stream, as gunzipSync does).
      if (outLeft !== 0) return out.subarray(0, written);
      const bigger = Buffer.allocUnsafe(Math.min(size * 2, maxBytes + 1));
      out.copy(bigger, 0, 0, written);
      out = bigger;
      size = bigger.length;
    }
  }

  /**
   * All of `input` through zlib with Z_FINISH, from a reset, as pieces of
   * at most `pieceBytes` in one buffer used again for each: a piece is only
   * good until the next is asked for. Ends where `whole` would return
   * (zlib finished, or stopped at what follows the stream). Throws
   * ZlibInputError when zlib fails on the input (the handle is then not
   * usable); a reader that stops early leaves the handle reset by its next use.
   */
  *pieces(input: Uint8Array, pieceBytes: number): Generator<Buffer, void, undefined> {
    this.#driver.binding.reset();
    yield* drain(this.#driver, input, constants.Z_FINISH, Buffer.allocUnsafe(Math.max(64, pieceBytes)));
  }

  close(): void {
    this.#driver.stream.destroy();
  }
}

/** This thread's kept handles, by kind; null marks a node without the internals. */
const kept = new Map<string, KeptZlib | null>();

/** This thread's handle of a kind (made on first use, and again after a failed input), or null: use the *Sync call. */
export function keptZlib(kind: KeptKind): KeptZlib | null {
  const key = kind === 'gunzip' ? kind : `gzip${kind.gzip}`;
  let z = kept.get(key);
  if (z === undefined || (z !== null && !z.usable)) {
    z = KeptZlib.make(kind);
    kept.set(key, z);
  }
  return z;
}
