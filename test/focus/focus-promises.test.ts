/**
 * What the README promises of a focus topic and no other test kept:
 * training read from WARC files and job directories (2xx HTML pages only,
 * gzip-encoded bodies decoded, noindex left out); keywords mixed with
 * training pages (each weighs as much as the topic's heaviest term); the
 * topic saved as its 5,000 heaviest terms. Expected weights are written out
 * by hand.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTrainingDocs } from '../../src/focus/training-docs.js';
import { MAX_TOPIC_TERMS, TopicModel } from '../../src/focus/topic-model.js';
import { pageHtml, warcBytes } from '../analysis/synthetic.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-promises-'));
});
after(async () => rm(tmp, { recursive: true, force: true }));

describe('focus training read from disk', () => {
  const page = (title: string, words: string): string => `<!doctype html><html><head><title>${title}</title></head><body><p>${words}</p></body></html>`;

  it('takes the 2xx HTML pages of a WARC file and of a job directory, and nothing else', async () => {
    const bytes = await warcBytes(
      [
        { url: 'http://t.test/kettle', html: page('Kettles', 'a kettle boils water for tea') },
        { url: 'http://t.test/pot', html: page('Teapots', 'a teapot steeps the leaves'), encoding: 'gzip' },
        { url: 'http://t.test/missing', html: page('Missing', 'not found here'), status: 404 },
        { url: 'http://t.test/hidden', html: page('Hidden', 'kept out of indexes'), headers: { 'X-Robots-Tag': 'noindex' } },
        { url: 'http://t.test/data.json', html: '{"kettle": true}', headers: { 'Content-Type': 'application/json' } },
        { url: 'http://t.test/pot', type: 'revisit', refersTo: 'http://t.test/pot' },
      ],
      true,
    );
    const file = path.join(tmp, 'training.warc.gz');
    await writeFile(file, bytes);
    const job = path.join(tmp, 'earlier-job');
    await mkdir(path.join(job, 'warcs'), { recursive: true });
    await writeFile(path.join(job, 'warcs', 'earlier.warc.gz'), bytes);
    for (const given of [file, job]) {
      const docs = await readTrainingDocs([given]);
      assert.deepEqual(
        docs.map((d) => [d.title, d.text.replace(/\s+/g, ' ').trim()]),
        [
          ['Kettles', 'a kettle boils water for tea'],
          ['Teapots', 'a teapot steeps the leaves'],
        ],
        `read from ${given}`,
      );
    }
  });

  it('says which path holds no WARC file', async () => {
    const empty = path.join(tmp, 'empty-dir');
    await mkdir(empty, { recursive: true });
    await assert.rejects(readTrainingDocs([empty]), (err: Error) => err.message.includes(`focus.training: ${empty} holds no WARC file`));
  });
});

describe('a topic of keywords and training pages', () => {
  it('gives each keyword the weight of the heaviest training term, raising a term the pages hold', () => {
    // The training pages' tf-idf centroid, as test/focus/topic-model.test.ts works it out:
    // tea 0.698960, pot 0.407399, green 0.287480. Keywords "kettle" (no page holds it) and
    // "pot" (held, lighter) each weigh the heaviest: 0.698960; tea and green are unchanged.
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['kettle', 'pot'], docs: [{ title: null, text: 'tea tea green' }, { title: null, text: 'tea pot' }] });
    const w = new Map(model.topTerms(10));
    for (const [t, expected] of [['tea', 0.69896], ['kettle', 0.69896], ['pot', 0.69896], ['green', 0.28748]] as const) {
      assert.ok(Math.abs(w.get(t)! - expected) < 1e-5, `${t}: ${w.get(t)}`);
    }
    assert.equal(w.size, 4);
  });
});

describe('the saved topic', () => {
  it(`keeps its ${MAX_TOPIC_TERMS} heaviest terms`, () => {
    assert.equal(MAX_TOPIC_TERMS, 5000);
    // 6,000 made-up words ("qaab", "qaac", …): one page holds each once and the first 100 of
    // them twice, so under the seed-less keyword-free tf-idf of one page those 100 weigh most.
    const word = (i: number): string => `q${String.fromCharCode(97 + Math.floor(i / 676), 97 + (Math.floor(i / 26) % 26), 97 + (i % 26))}x`;
    const words = Array.from({ length: 6000 }, (_, i) => word(i));
    const text = [...words, ...words.slice(0, 100)].join(' ');
    const model = TopicModel.build({ weighting: 'tfidf', keywords: [], docs: [{ title: null, text }] });
    const saved = model.toJSON().weights;
    assert.equal(saved.length, 5000);
    const kept = new Set(saved.map(([t]) => t));
    for (const heavy of words.slice(0, 100)) assert.ok(kept.has(heavy), `${heavy}, among the heaviest, is kept`);
    assert.equal(TopicModel.fromJSON(model.toJSON())!.topTerms(10_000).length, 5000, 'and a resume reads back the same 5,000');
  });
});
