/**
 * The end of a crawl reads the capture journal as bytes and never decodes
 * a page's text (journal-bytes.ts): the text field is found by a byte
 * search and carried as its JSON string into pages.jsonl. These tests hold
 * that to what parsing each line whole gives, on texts built to fool a
 * byte search — quotes, backslashes before quotes, the key itself inside
 * the text, non-ASCII, a text that is not the last key, a cut line — and
 * a pages.jsonl line spliced from the bytes to JSON.stringify's.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CaptureJournal, parseJournalLine, readJournalLine, type JournaledCapture } from '../../src/job/capture-journal.js';
import { openCaptureJournal, withText } from '../../src/job/capture-journal-reader.js';
import { fileLineBuffers } from '../../src/core/file-lines.js';
import { decodeTextJson, splitTextField } from '../../src/job/journal-bytes.js';
import { JournalPageOrder, pageLine } from '../../src/wacz/journal-pages.js';
import { PageList } from '../../src/wacz/page-list.js';
import { journaledCapture } from '../helpers/journaled-capture.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-journal-bytes-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const TRICKY_TEXTS = [
  'plain words',
  'a "quoted" word and a \\ backslash',
  'ends in a backslash \\',
  'ends in a quote "',
  'the key itself: ,"text":" and \\",\\"text\\":\\" again',
  'backslash then quote: \\" and two backslashes then quote: \\\\"',
  'non-ASCII: café, 漢字, emoji 😀, a line\nbreak and a tab\t, a NUL \u0000 and U+2028 \u2028',
];

function capture(i: number, extra: Partial<JournaledCapture> = {}): JournaledCapture {
  return journaledCapture(i, { title: `Page "${i}"`, ...extra });
}

describe('journal lines read as bytes', () => {
  test('each tricky text: the split line parses to what the whole line parses to, the text undecoded until asked', () => {
    for (const [i, text] of TRICKY_TEXTS.entries()) {
      // The text last, as the journal writes it, and in the middle, as a hand-written line may have it.
      const { text: _omit, ...head } = capture(i);
      const last = JSON.stringify({ ...head, text });
      const { url, ...rest } = head;
      const middle = JSON.stringify({ url, text, ...rest });
      for (const line of [last, middle]) {
        const whole = parseJournalLine(line);
        const raw = readJournalLine(Buffer.from(line, 'utf8'));
        assert.equal(whole?.kind, 'capture');
        assert.equal(raw?.kind, 'capture');
        if (whole?.kind !== 'capture' || raw?.kind !== 'capture') continue;
        assert.ok(raw.capture.textJson !== undefined, `text found in ${line}`);
        assert.deepEqual(withText(raw.capture), whole.capture);
      }
    }
  });

  test('a line without text, an empty text, and a cut line', () => {
    const none = readJournalLine(Buffer.from(JSON.stringify(capture(1)), 'utf8'));
    assert.ok(none?.kind === 'capture' && none.capture.textJson === undefined);
    const empty = readJournalLine(Buffer.from(JSON.stringify({ ...capture(2), text: '' }), 'utf8'));
    assert.ok(empty?.kind === 'capture' && empty.capture.textJson === undefined, 'the empty text counts as none');
    const full = JSON.stringify({ ...capture(3), text: 'some "text" here' });
    for (const cutAt of [full.length - 1, full.length - 5, full.indexOf('"text":') + 9]) {
      assert.equal(readJournalLine(Buffer.from(full.slice(0, cutAt), 'utf8')), null, `cut at ${cutAt}`);
    }
    assert.deepEqual(splitTextField(Buffer.from('{"closed":true}')), { head: '{"closed":true}', textJson: null });
  });

  test('the journal as written and read back as bytes, lines longer than a read chunk included', async () => {
    const file = path.join(tmp, 'j1', 'captures.jsonl');
    const journal = await CaptureJournal.open(file);
    const written: JournaledCapture[] = [];
    for (const [i, text] of TRICKY_TEXTS.entries()) {
      const c = { ...capture(i), text: text.repeat(i === 2 ? 400 : 1) };
      written.push(c);
      await journal.append(c);
    }
    await journal.close();
    // Chunks of 64 bytes: most lines span several.
    const lines: Buffer[] = [];
    // Copied: a batch's lines hold until the next batch is read.
    for await (const batch of fileLineBuffers(file, 64)) lines.push(...batch.map((l) => Buffer.from(l)));
    const text = await readFile(file, 'utf8');
    assert.deepEqual(lines.map((l) => l.toString('utf8')), text.split('\n').filter((l) => l !== ''));
    const reader = await openCaptureJournal(file, new Map([['A.warc.gz', 1e9]]));
    const back: JournaledCapture[] = [];
    for await (const c of reader!.captures()) back.push(c);
    assert.deepEqual(back, written);
  });

  test('a page line spliced from the text bytes is JSON.stringify of the decoded page', async () => {
    const list = new PageList<Buffer>();
    for (const [i, text] of TRICKY_TEXTS.entries()) {
      const textJson = Buffer.from(JSON.stringify(text), 'utf8');
      for (const relevance of [undefined, 0.25]) {
        const page = list.next({ url: `http://h/${i}/${relevance}`, warcDate: '2026-01-02T03:04:05Z', digest: null, original: true, title: 'T "x"', text: textJson, ...(relevance !== undefined ? { relevance } : {}) });
        assert.ok(page !== null);
        const decoded = { ...page, text: decodeTextJson(page.text!) };
        assert.equal(pageLine(page).toString('utf8'), JSON.stringify(decoded));
      }
    }
  });

  test('a text over the cap (a journal of another version) is cut to it in characters', async () => {
    const order = new JournalPageOrder(['A.warc.gz'], 10);
    const file = path.join(tmp, 'cap.jsonl');
    const long = 'é"\\😀'.repeat(6);
    await writeFile(file, `${JSON.stringify({ ...capture(1), text: long })}\n${JSON.stringify({ ...capture(2), text: 'short é' })}\n`);
    const reader = await openCaptureJournal(file, new Map([['A.warc.gz', 1e9]]));
    const texts: string[] = [];
    for await (const c of reader!.rawCaptures()) texts.push(decodeTextJson(order.candidateOf(c)!.text!));
    assert.deepEqual(texts, [long.slice(0, 10), 'short é']);
  });
});
