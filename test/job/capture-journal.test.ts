/**
 * The capture journal on its own: lines round-trip; a closed journal asks
 * for no rescan; a kill -9 (simulated: lines written, never closed, the last
 * one cut) leaves a journal that reopens without the cut line and asks for
 * the files of its last captures to be re-read; lines pointing past the end
 * of a WARC the resume's repair cut back, or at a WARC that is gone, are
 * dropped when read; thousands of appends without awaiting all arrive;
 * text is capped. The streaming reader (two passes, no capture held) gives
 * what the whole read gives.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CaptureJournal, JOURNAL_MAX_TEXT_CHARS, parseJournalLine, type JournaledCapture } from '../../src/job/capture-journal.js';
import type { JournalSummary } from '../../src/job/journal-summary.js';
import { openCaptureJournal } from '../../src/job/capture-journal-reader.js';
import { captureJournalPath } from '../../src/job/job-dir.js';
import { journaledCapture } from '../helpers/journaled-capture.js';

/** The whole journal in memory: openCaptureJournal, then every capture. */
async function readCaptureJournal(file: string, warcSizes: ReadonlyMap<string, number>) {
  const reader = await openCaptureJournal(file, warcSizes);
  if (reader === null) return null;
  const captures: JournaledCapture[] = [];
  for await (const c of reader.captures()) captures.push(c);
  return { captures, rescan: new Set(reader.rescan), dropped: reader.dropped };
}

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-journal-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function capture(i: number, filename = 'A.warc.gz', extra: Partial<JournaledCapture> = {}): JournaledCapture {
  return journaledCapture(i, { filename, seed: i === 0, text: `text of page ${i}`, ...extra });
}

const bigSizes = new Map([['A.warc.gz', 1e9], ['B.warc.gz', 1e9]]);

describe('capture journal', () => {
  test('appended captures read back in order; a closed journal asks for no rescan', async () => {
    const file = captureJournalPath(path.join(tmp, 'job1'));
    const j = await CaptureJournal.open(file);
    for (let i = 0; i < 5; i++) await j.append(capture(i));
    await j.close();
    await j.close();
    const read = await readCaptureJournal(file, bigSizes);
    assert.ok(read);
    assert.deepEqual(read.captures, [0, 1, 2, 3, 4].map((i) => capture(i)));
    assert.deepEqual([...read.rescan], []);
    assert.equal(read.dropped, 0);
    await assert.rejects(j.append(capture(9)), { code: 'ARCHIVER_JOURNAL_WRITE' });
  });

  test('no journal file: null (the WARCs are read instead)', async () => {
    assert.equal(await readCaptureJournal(path.join(tmp, 'none', 'captures.jsonl'), bigSizes), null);
  });

  test('reopened after a kill: the cut line is removed and the last files are marked for rescan', async () => {
    const file = path.join(tmp, 'killed.jsonl');
    const j = await CaptureJournal.open(file);
    await j.append(capture(0, 'A.warc.gz'));
    await j.append(capture(1, 'B.warc.gz'));
    // Simulate kill -9: the stream is never ended, and a line was cut mid-write.
    await new Promise((r) => setTimeout(r, 20));
    await appendFile(file, JSON.stringify(capture(2, 'B.warc.gz')).slice(0, 40));
    // Before any reopen (killed, never resumed), reading asks for the rescan too.
    const unresumed = await readCaptureJournal(file, bigSizes);
    assert.deepEqual([...unresumed!.rescan].sort(), ['A.warc.gz', 'B.warc.gz']);
    assert.equal(unresumed!.dropped, 1, 'the cut line');

    const resumed = await CaptureJournal.open(file);
    const text = await readFile(file, 'utf8');
    assert.ok(text.endsWith('\n'));
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.deepEqual(JSON.parse(lines[2]!), { rescan: ['A.warc.gz', 'B.warc.gz'] });
    await resumed.append(capture(3, 'C.warc.gz'));
    await resumed.close();
    const read = await readCaptureJournal(file, new Map([...bigSizes, ['C.warc.gz', 1e9]]));
    assert.deepEqual(read!.captures.map((c) => c.url), [0, 1, 3].map((i) => capture(i).url));
    assert.deepEqual([...read!.rescan].sort(), ['A.warc.gz', 'B.warc.gz'], 'C was written by a run that closed cleanly');
    assert.equal(read!.dropped, 0);
  });

  test('a reopened clean journal gets no rescan line', async () => {
    const file = path.join(tmp, 'clean.jsonl');
    const a = await CaptureJournal.open(file);
    await a.append(capture(0));
    await a.close();
    const b = await CaptureJournal.open(file);
    await b.append(capture(1));
    await b.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.includes('rescan')).length, 0);
    assert.equal((await readCaptureJournal(file, bigSizes))!.captures.length, 2);
  });

  test('lines past the end of a repaired WARC, or in a WARC that is gone, are dropped', async () => {
    const file = path.join(tmp, 'repaired.jsonl');
    const j = await CaptureJournal.open(file);
    for (let i = 0; i < 4; i++) await j.append(capture(i, 'A.warc.gz'));
    await j.append(capture(4, 'Gone.warc.gz'));
    await j.close();
    // A's member 2 ends at 1000 + 2*100 + 100 = 1300: a file cut back to 1300 keeps 0..2.
    const read = await readCaptureJournal(file, new Map([['A.warc.gz', 1300]]));
    assert.deepEqual(read!.captures.map((c) => c.offset), [1000, 1100, 1200]);
    assert.equal(read!.dropped, 2);
  });

  test('thousands of appends without awaiting each: every line arrives', async () => {
    const file = path.join(tmp, 'many.jsonl');
    const j = await CaptureJournal.open(file);
    const big = 'x'.repeat(20_000);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 3000; i++) writes.push(j.append(capture(i, 'A.warc.gz', { text: big })));
    await Promise.all(writes);
    await j.close();
    const read = await readCaptureJournal(file, bigSizes);
    assert.equal(read!.captures.length, 3000);
    assert.deepEqual(read!.captures.map((c) => c.offset), Array.from({ length: 3000 }, (_, i) => 1000 + i * 100));
  });

  test('a journal this run began is closed with a summary of its run, which stands for the first read; a reopened one is closed without', async () => {
    const file = captureJournalPath(path.join(tmp, 'jsum'));
    const journal = await CaptureJournal.open(file);
    await journal.append(capture(0));
    // A text-less revisit of capture 0's payload: it will borrow that page's text.
    await journal.append(capture(1, 'A.warc.gz', { revisit: true, title: '', text: '', digest: 'sha1:D0' }));
    await journal.append(capture(2, 'B.warc.gz'));
    await journal.close();
    const last = (await readFile(file, 'utf8')).trimEnd().split('\n').at(-1)!;
    assert.deepEqual(parseJournalLine(last), {
      kind: 'closed',
      summary: { captures: 3, files: [['A.warc.gz', 1200], ['B.warc.gz', 1300]], inOrder: true, markedSeeds: [capture(0).url], borrowers: [['sha1:D0', 1]] },
    });
    let summed: JournalSummary | null = null;
    const fromSummary = await openCaptureJournal(file, bigSizes, () => assert.fail('no line read'), (s) => (summed = s));
    assert.ok(summed !== null && fromSummary?.summary === summed);
    const seen: string[] = [];
    const read = await openCaptureJournal(file, bigSizes, (c) => seen.push(c.url));
    assert.equal(read?.summary, null);
    assert.equal(seen.length, 3);
    assert.deepEqual([...fromSummary.covered].sort(), [...read!.covered].sort());
    assert.deepEqual([...fromSummary.rescan], [...read!.rescan]);
    // A file cut shorter than the summary says: the journal is read.
    const cut = await openCaptureJournal(file, new Map([['A.warc.gz', 1e9], ['B.warc.gz', 1250]]), undefined, () => assert.fail('summary used'));
    assert.equal(cut?.summary, null);
    assert.equal(cut?.dropped, 1);
    const again = await CaptureJournal.open(file);
    await again.append(capture(3, 'B.warc.gz'));
    await again.close();
    assert.equal((await readFile(file, 'utf8')).trimEnd().split('\n').at(-1), '{"closed":true}');
  });

  test('text is capped; empty title and text are left out', async () => {
    const file = path.join(tmp, 'cap.jsonl');
    const j = await CaptureJournal.open(file);
    await j.append(capture(0, 'A.warc.gz', { text: 'y'.repeat(JOURNAL_MAX_TEXT_CHARS + 50) }));
    await j.append(capture(1, 'A.warc.gz', { text: '', title: '' }));
    await j.close();
    const read = await readCaptureJournal(file, bigSizes);
    assert.equal(read!.captures[0]!.text!.length, JOURNAL_MAX_TEXT_CHARS);
    assert.equal('text' in read!.captures[1]!, false);
    assert.equal('title' in read!.captures[1]!, false);
  });

  test('garbage lines are skipped, not fatal', async () => {
    const file = path.join(tmp, 'garbage.jsonl');
    await writeFile(file, `${JSON.stringify(capture(0))}\nnot json\n{"url":1}\n${JSON.stringify(capture(1))}\n{"closed":true}\n`);
    const read = await readCaptureJournal(file, bigSizes);
    assert.equal(read!.captures.length, 2);
    assert.equal(read!.dropped, 2);
    assert.deepEqual([...read!.rescan], []);
  });

  test('streaming read: the first pass tells rescan, covered files and dropped lines; captures() streams the kept ones, again on each call', async () => {
    const file = path.join(tmp, 'stream.jsonl');
    const lines = [
      JSON.stringify(capture(0, 'A.warc.gz')),
      JSON.stringify(capture(1, 'Gone.warc.gz')),
      JSON.stringify({ rescan: ['Z.warc.gz'] }),
      JSON.stringify(capture(2, 'B.warc.gz')),
      JSON.stringify(capture(3, 'A.warc.gz')),
      '{"cut',
    ];
    await writeFile(file, lines.join('\n') + '\n');
    const reader = await openCaptureJournal(file, bigSizes);
    assert.ok(reader);
    assert.deepEqual([...reader.covered].sort(), ['A.warc.gz', 'B.warc.gz']);
    // Not closed: the files of its last lines, and the rescan line's, are to be read from the WARCs.
    assert.deepEqual([...reader.rescan].sort(), ['A.warc.gz', 'B.warc.gz', 'Gone.warc.gz', 'Z.warc.gz']);
    assert.equal(reader.dropped, 2, 'the line of a missing file and the cut line');
    const urls = async () => {
      const out: string[] = [];
      for await (const c of reader.captures()) out.push(c.url);
      return out;
    };
    const expected = [0, 2, 3].map((i) => capture(i).url);
    assert.deepEqual(await urls(), expected);
    assert.deepEqual(await urls(), expected);
    for await (const c of reader.captures()) {
      assert.equal(c.url, expected[0]);
      break;
    }
    const whole = await readCaptureJournal(file, bigSizes);
    assert.deepEqual(whole!.captures.map((c) => c.url), expected);
    assert.deepEqual(whole!.rescan, new Set(reader.rescan));
    assert.equal(whole!.dropped, 2);
    assert.equal(await openCaptureJournal(path.join(tmp, 'nothing.jsonl'), bigSizes), null);
  });
});
