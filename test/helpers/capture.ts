/** A writable stream that keeps what is written, for CLI tests. */
import { Writable } from 'node:stream';

export class Capture extends Writable {
  #chunks: Buffer[] = [];
  isTTY = false;

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.#chunks.push(Buffer.from(chunk));
    done();
  }

  get text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

export function captureIo(): { stdout: Capture; stderr: Capture } {
  return { stdout: new Capture(), stderr: new Capture() };
}
