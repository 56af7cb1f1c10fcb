/**
 * A cut or corrupt WARC, met by every command that reads WARCs.
 *
 * The walk-through found `archiver index some-truncated.warc.gz` exiting 0
 * ("indexed 63 captures": warcio stopped quietly at the damage) while
 * `analyze` flagged the same file as truncated at an offset. Now each
 * command (analyze, index, wacz, search, replay of WARCs) gives the same
 * line for the same damage (file, offset, what was skipped), reading goes
 * on after a corrupt gzip member, and the commands
 * that write an index (index, wacz) write nothing and exit 1 unless given
 * --skip-bad, which indexes what can be read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import { replayMain } from '../../src/cli/replay-command.js';
import { captureIo } from '../helpers/capture.js';
import { pageHtml, warcBytes } from '../analysis/synthetic.js';

const H = 'http://damage.test';
const PAGES = 12;

/** The `warning:` lines about damage (those naming an offset and what was skipped). */
function damageLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /^warning: .* at offset \d+ .*; (skipped|file skipped)/.test(l));
}

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(args, io);
    return { code, stdout: io.stdout.text, stderr: io.stderr.text };
  } finally {
    process.chdir(before);
  }
}

describe('cut and corrupt WARCs across commands', () => {
  let dir: string;
  /** Offset of each record's gzip member in the whole file. */
  const offsets: number[] = [];

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-damage-'));
    const members: Uint8Array[] = [];
    for (let i = 0; i < PAGES; i++) {
      // Text that does not compress to nothing, so a member has a middle to corrupt.
      const filler = Array.from({ length: 300 }, (_, k) => `word${(i * 7919 + k * 104729) % 99991}`).join(' ');
      members.push(await warcBytes([{ url: `${H}/p${i}.html`, html: pageHtml(`Page ${i}`, [`/p${(i + 1) % PAGES}.html`]) + filler }], true));
    }
    let at = 0;
    for (const m of members) {
      offsets.push(at);
      at += m.length;
    }
    const whole = Buffer.concat(members);
    await fs.writeFile(path.join(dir, 'good.warc.gz'), whole);
    // Cut inside the last member.
    await fs.writeFile(path.join(dir, 'cut.warc.gz'), whole.subarray(0, offsets[PAGES - 1]! + 100));
    // Garbage over the middle of the 5th member's deflate data.
    const bad = Buffer.from(whole);
    const mid = offsets[4]! + Math.floor((offsets[5]! - offsets[4]!) / 2);
    bad.fill(0x5a, mid, mid + 64);
    await fs.writeFile(path.join(dir, 'bad.warc.gz'), bad);
    for (const name of ['cut', 'bad']) {
      await fs.mkdir(path.join(dir, `job-${name}`, 'warcs'), { recursive: true });
      await fs.copyFile(path.join(dir, `${name}.warc.gz`), path.join(dir, `job-${name}`, 'warcs', `${name}.warc.gz`));
    }
  });

  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('index exits 1 and writes nothing; analyze reports the same line; --skip-bad indexes what can be read', async () => {
    const expected = {
      cut: { line: `cut.warc.gz: cut short at offset ${offsets[PAGES - 1]} (the file ends inside a gzip member); skipped the last 100 bytes`, captures: PAGES - 1 },
      bad: { line: `bad.warc.gz: corrupt data at offset ${offsets[4]} (`, captures: PAGES - 1 },
    };
    for (const [name, want] of Object.entries(expected)) {
      const file = `${name}.warc.gz`;
      const refused = await run(['index', file, '-o', `${name}.cdxj`], dir);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /damaged .*nothing written; archiver index --skip-bad indexes what can be read \[ARCHIVER_WARC_DAMAGED\]/);
      await assert.rejects(fs.stat(path.join(dir, `${name}.cdxj`)), { code: 'ENOENT' });
      const toStdout = await run(['index', file], dir);
      assert.equal(toStdout.code, 1);
      assert.equal(toStdout.stdout, '');

      const lines = damageLines(refused.stderr);
      assert.equal(lines.length, 1, refused.stderr);
      assert.ok(lines[0]!.startsWith(`warning: ${want.line}`), lines[0]);
      if (name === 'bad') assert.match(lines[0]!, new RegExp(`; skipped [\\d,]+ bytes, read on from offset ${offsets[5]}$`));

      const analyzed = await run(['analyze', file, '--top', '0'], dir);
      assert.equal(analyzed.code, 0, analyzed.stderr);
      assert.deepEqual(damageLines(analyzed.stderr), lines, 'analyze and index say the same');

      const skipped = await run(['index', '--skip-bad', file, '-o', `${name}.cdxj`], dir);
      assert.equal(skipped.code, 0, skipped.stderr);
      assert.deepEqual(damageLines(skipped.stderr), lines);
      const cdxj = (await fs.readFile(path.join(dir, `${name}.cdxj`), 'utf8')).trim().split('\n');
      assert.equal(cdxj.length, want.captures, `${name}: the records after the damage are read too`);
      // Each entry's length ends where the next record (or the damage) starts.
      for (const line of cdxj) {
        const { offset, length } = JSON.parse(line.slice(line.indexOf('{'))) as { offset: string; length: string };
        const i = offsets.indexOf(Number(offset));
        assert.ok(i >= 0, line);
        if (i + 1 < PAGES) assert.equal(Number(offset) + Number(length), offsets[i + 1], line);
      }
    }
  });

  it('replay of WARC files tells the same damage before serving them', async () => {
    const before = process.cwd();
    process.chdir(dir);
    try {
      for (const name of ['cut', 'bad']) {
        const io = captureIo();
        assert.equal(await replayMain([`${name}.warc.gz`, '--port', '0'], io, { until: Promise.resolve() }), 0, io.stderr.text);
        const indexed = await run(['index', `${name}.warc.gz`], dir);
        assert.deepEqual(damageLines(io.stderr.text), damageLines(indexed.stderr));
        assert.equal(damageLines(io.stderr.text).length, 1);
        assert.match(io.stdout.text, /Open http:\/\/127\.0\.0\.1:\d+\//);
      }
    } finally {
      process.chdir(before);
    }
  });

  it('an undamaged file indexes whole, with no warning', async () => {
    const r = await run(['index', 'good.warc.gz', '-o', 'good.cdxj'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /warning/);
    assert.equal((await fs.readFile(path.join(dir, 'good.cdxj'), 'utf8')).trim().split('\n').length, PAGES);
  });

  it('index and wacz of a job refuse it the same way; search builds its index around the damage', async () => {
    for (const name of ['cut', 'bad']) {
      const job = `job-${name}`;
      const index = await run(['index', job], dir);
      assert.equal(index.code, 1, index.stderr);
      const line = damageLines(index.stderr);
      assert.equal(line.length, 1, index.stderr);
      await assert.rejects(fs.stat(path.join(dir, job, 'indexes', 'index.cdxj')), { code: 'ENOENT' });

      const wacz = await run(['wacz', job], dir);
      assert.equal(wacz.code, 1, wacz.stderr);
      assert.deepEqual(damageLines(wacz.stderr), line);
      assert.match(wacz.stderr, /archiver wacz --skip-bad/);
      await assert.rejects(fs.stat(path.join(dir, job, `${job}.wacz`)), { code: 'ENOENT' });

      const search = await run(['search', job, 'Page'], dir);
      assert.equal(search.code, 0, search.stderr);
      assert.deepEqual(damageLines(search.stderr), line);
      assert.match(search.stdout, new RegExp(`^${PAGES - 1} pages match`));

      const packaged = await run(['wacz', '--skip-bad', job], dir);
      assert.equal(packaged.code, 0, packaged.stderr);
      await fs.stat(path.join(dir, job, `${job}.wacz`));
    }
  });
});
