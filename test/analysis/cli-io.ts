/** Test helpers: capture a command's stdout/stderr, and check that an SVG is well-formed XML. */
import { Writable } from 'node:stream';

export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.text += chunk.toString();
    cb();
  }
}

export function captureIo(): { stdout: Capture; stderr: Capture } {
  return { stdout: new Capture(), stderr: new Capture() };
}

/**
 * A small well-formedness check (no XML parser among our dependencies):
 * one root, every tag closed in order, attributes quoted, no stray `<` or
 * `&` in text. Returns the element names seen, or throws.
 */
export function checkWellFormedXml(xml: string): string[] {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/g;
  const stack: string[] = [];
  const names: string[] = [];
  let roots = 0;
  let last = 0;
  const checkText = (text: string): void => {
    if (/[<>]/.test(text) || /&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(text)) throw new Error(`bad text: ${text.slice(0, 40)}`);
    if (stack.length === 0 && text.trim() !== '') throw new Error('text outside the root');
  };
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    checkText(body.slice(last, m.index));
    last = tag.lastIndex;
    const [, close, name, , selfClose] = m;
    if (close) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`);
      continue;
    }
    names.push(name!);
    if (stack.length === 0) roots++;
    if (!selfClose) stack.push(name!);
  }
  checkText(body.slice(last));
  if (stack.length !== 0) throw new Error(`unclosed <${stack.pop()}>`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return names;
}
