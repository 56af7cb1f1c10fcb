/**
 * Capture-journal lines read as bytes, for the end of a crawl: a page's
 * text is most of the journal (11 MB of 11.1 for the Python docs), and
 * neither of finalize's two reads needs it decoded — the first only asks
 * whether a capture has text, the second copies the text into pages.jsonl
 * as the JSON string it already is. So each line is cut into its head
 * (every field but `text`, decoded and parsed: a few hundred bytes) and the
 * text's JSON string, kept as bytes.
 *
 * Why a byte search finds the text field: inside a JSON string every `"`
 * is escaped, so the bytes `,"text":"` can only be JSON's own punctuation,
 * and journal lines are flat objects, so that is the top-level key `text`.
 * The journal writes it last (CaptureJournal.append); a line that has it
 * elsewhere (hand-written) is read all the same, the string's end found by
 * its first unescaped quote.
 */

const TEXT_KEY = Buffer.from(',"text":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A line cut in two: `head` is the line without its text field, `textJson` that field's JSON string (quotes included). */
export interface SplitLine {
  head: string;
  textJson: Buffer | null;
}

/** Cut the `text` field out of one journal line (no newline). */
export function splitTextField(line: Buffer): SplitLine {
  const at = line.indexOf(TEXT_KEY);
  if (at < 0) return { head: line.toString('utf8'), textJson: null };
  const open = at + TEXT_KEY.length - 1;
  const end = stringEnd(line, open + 1);
  // No closing quote: a cut line; parsed whole, it fails as it should.
  if (end < 0) return { head: line.toString('utf8'), textJson: null };
  // Not copied: it is valid as long as the line (see fileLineBuffers, core/file-lines.ts).
  const textJson = line.subarray(open, end);
  return { head: line.toString('utf8', 0, at) + line.toString('utf8', end), textJson };
}

/** Index just past the JSON string's closing quote, searching from `from` (just after its opening one); -1 if none. */
function stringEnd(b: Buffer, from: number): number {
  let i = from;
  for (;;) {
    const q = b.indexOf(QUOTE, i);
    if (q < 0) return -1;
    let slashes = 0;
    for (let j = q - 1; j >= from && b[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** A text's bytes on their own, for a reader that keeps them past its line's batch. */
export function copyText(textJson: Buffer): Buffer {
  const copy = Buffer.allocUnsafe(textJson.length);
  textJson.copy(copy);
  return copy;
}

/** A text's JSON string (as splitTextField gives it) decoded. */
export function decodeTextJson(textJson: Buffer): string {
  return JSON.parse(textJson.toString('utf8')) as string;
}
