/**
 * The "Name: value" heads of WARC records and of the HTTP messages inside
 * them: where a head ends (its empty line), its fields, and an HTTP
 * response's status line.
 */

/**
 * Where the head in `b` ends — the index of its terminating empty line's
 * first byte — searching from `from`; -1 when it does not end in `b`.
 * Lines end in CRLF, or LF from lax writers.
 */
export function headEnd(b: Buffer, from: number): number {
  for (let at = b.indexOf(10, from); at >= 0; at = b.indexOf(10, at + 1)) {
    const next = b[at + 1];
    if (next === 10 || (next === 13 && b[at + 2] === 10)) return at + 1;
    if (next === undefined || (next === 13 && at + 2 >= b.length)) return -1;
  }
  return -1;
}

/** Index just past the empty line that starts at `end`. */
export function endAfter(b: Buffer, end: number): number {
  return b[end] === 13 ? end + 2 : end + 1;
}

/** "Name: value" lines from `first` on into a map of lower-cased names (first occurrence wins); indented lines continue a value. */
export function parseFields(lines: readonly string[], first: number): Map<string, string> {
  const fields = new Map<string, string>();
  let name: string | null = null;
  let value = '';
  const flush = (): void => {
    if (name !== null && !fields.has(name)) fields.set(name, value);
    name = null;
  };
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && name !== null) {
      value += ' ' + line.trim(); // obs-fold: one space (RFC 9112)
      continue;
    }
    flush();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    name = line.slice(0, colon).trim().toLowerCase();
    value = line.slice(colon + 1).trim();
  }
  flush();
  return fields;
}

export interface HttpHead {
  statusline: string;
  /** The status code, NaN when the status line has none. */
  status: number;
  /** Lower-cased names; of a repeated header, the first. */
  headers: Map<string, string>;
  /** Where the body starts in the block. */
  bodyStart: number;
}

/** The HTTP head at the start of a response or revisit block; null for an empty block. */
export function parseHttpHead(block: Buffer): HttpHead | null {
  if (block.length === 0) return null;
  const end = headEnd(block, 0);
  const headBytes = end < 0 ? block : block.subarray(0, end);
  const lines = headBytes.toString('utf8').split(/\r?\n/);
  const statusline = lines[0]!.trimEnd();
  const parts = statusline.split(' ');
  return {
    statusline,
    status: parts.length > 1 ? Number(parts[1]) : NaN,
    headers: parseFields(lines, 1),
    bodyStart: end < 0 ? block.length : endAfter(block, end),
  };
}
