/**
 * AppendFile, the synchronous appender under the WARC files, crawl.log and
 * the capture journal: bytes arrive in order and `size` follows them; an
 * existing file is appended to (or replaced); truncate() cuts and the next
 * append lands at the new end (O_APPEND, no hole); close is idempotent and
 * a closed file refuses with a stable code; a write error (ENOSPC on a tiny
 * real tmpfs, or /dev/full) is thrown as fs threw it, `size` counts what did
 * reach the file, and every later append throws that same error. Short
 * writes cannot be provoked on a real file, so the helper that resumes
 * after one is tested on its own.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppendFile, chunksAfter } from '../../src/writer/append-file.js';

let tmp: string;
let tiny: string;
let mounted = false;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-append-'));
  tiny = path.join(tmp, 'tiny');
  await mkdir(tiny);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', tiny], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
});

after(async () => {
  if (mounted) execFileSync('umount', [tiny]);
  await rm(tmp, { recursive: true, force: true });
});

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('AppendFile', () => {
  test('appends chunks in order; size counts them', async () => {
    const file = path.join(tmp, 'a.bin');
    const out = await AppendFile.open(file);
    assert.equal(out.size, 0);
    out.append([bytes('abc'), bytes(''), bytes('defg')]);
    out.append([]);
    out.append([bytes('h')]);
    assert.equal(out.size, 8);
    out.close();
    assert.equal((await readFile(file)).toString('latin1'), 'abcdefgh');
  });

  test('more chunks than one writev takes (IOV_MAX is 1024) all arrive, in order', async () => {
    const file = path.join(tmp, 'many.bin');
    const out = await AppendFile.open(file);
    const chunks = Array.from({ length: 3000 }, (_, i) => bytes(`${i},`));
    out.append(chunks);
    out.close();
    const text = (await readFile(file)).toString('latin1');
    assert.equal(text, chunks.map((c) => c.toString('latin1')).join(''));
    assert.equal(out.size, text.length);
  });

  test('an existing file is appended to, its length counted in size; replace starts it empty', async () => {
    const file = path.join(tmp, 'existing.bin');
    await writeFile(file, 'before|');
    const kept = await AppendFile.open(file);
    assert.equal(kept.size, 7);
    kept.append([bytes('after')]);
    assert.equal(kept.size, 12);
    kept.close();
    assert.equal(await readFile(file, 'latin1'), 'before|after');

    const replaced = await AppendFile.open(file, { replace: true });
    assert.equal(replaced.size, 0);
    replaced.append([bytes('new')]);
    replaced.close();
    assert.equal(await readFile(file, 'latin1'), 'new');
  });

  test('truncate cuts the file, and the next append lands at the new end (no hole)', async () => {
    const file = path.join(tmp, 'cut.bin');
    const out = await AppendFile.open(file, { replace: true });
    out.append([bytes('keep'), bytes('DROP-ME')]);
    out.truncate(4);
    assert.equal(out.size, 4);
    out.append([bytes('+more')]);
    assert.equal(out.size, 9);
    out.close();
    assert.equal(await readFile(file, 'latin1'), 'keep+more');
  });

  test('close is idempotent; a closed file refuses append and truncate with ARCHIVER_FILE_CLOSED', async () => {
    const out = await AppendFile.open(path.join(tmp, 'closed.bin'));
    out.append([bytes('x')]);
    assert.equal(out.closed, false);
    out.close();
    out.close();
    assert.equal(out.closed, true);
    assert.throws(() => out.append([bytes('y')]), { code: 'ARCHIVER_FILE_CLOSED' });
    assert.throws(() => out.truncate(0), { code: 'ARCHIVER_FILE_CLOSED' });
    assert.equal(out.size, 1);
  });

  test('an open error rejects with the fs code', async () => {
    await assert.rejects(AppendFile.open(path.join(tmp, 'no-such-dir', 'f.bin')), { code: 'ENOENT' });
    await assert.rejects(AppendFile.open(tmp), { code: 'EISDIR' });
  });

  test('a full device (/dev/full): ENOSPC as thrown, nothing counted, the same error ever after', { skip: !existsSync('/dev/full') }, async () => {
    const out = await AppendFile.open('/dev/full');
    let first: unknown;
    assert.throws(
      () => out.append([bytes('record')]),
      (err) => {
        first = err;
        return (err as NodeJS.ErrnoException).code === 'ENOSPC';
      },
    );
    assert.equal(out.size, 0);
    assert.throws(() => out.append([bytes('again')]), (err) => err === first);
    out.close();
  });

  test('asFailure: the error becomes the writer\'s own, is kept as `failure`, and is what a closed file throws too', { skip: !existsSync('/dev/full') }, async () => {
    class LogError extends Error {}
    const out = await AppendFile.open('/dev/full', { asFailure: (err) => new LogError('log failed', { cause: err }) });
    assert.equal(out.failure, null);
    assert.throws(() => out.append([bytes('record')]), (err) => err instanceof LogError && (err.cause as NodeJS.ErrnoException).code === 'ENOSPC');
    const kept: unknown = out.failure;
    assert.ok((kept as object) instanceof LogError);
    out.close();
    assert.throws(() => out.append([bytes('again')]), (err) => err === kept);
  });

  test('a disk filling up mid-append (real tmpfs): ENOSPC, size = the bytes that reached the file, cut back with truncate', async (t) => {
    if (!mounted) {
      t.skip('cannot mount a tmpfs here (needs root)');
      return;
    }
    const file = path.join(tiny, 'fills.bin');
    const out = await AppendFile.open(file);
    out.append([Buffer.alloc(8 * 1024, 1)]);
    const before = out.size;
    // 64 KiB of space: a 16 KiB-chunk append of 128 KiB gets part way, then fails.
    const chunks = Array.from({ length: 8 }, (_, i) => Buffer.alloc(16 * 1024, 2 + i));
    let first: unknown;
    assert.throws(
      () => out.append(chunks),
      (err) => {
        first = err;
        return (err as NodeJS.ErrnoException).code === 'ENOSPC';
      },
    );
    assert.equal(out.size, (await stat(file)).size, 'size counts exactly what reached the file');
    assert.ok(out.size > before, 'part of the append reached the file before the device filled');
    assert.throws(() => out.append([bytes('z')]), (err) => err === first);
    // The writer above cuts its partial bytes off, as WarcFile.abort() does.
    out.truncate(before);
    assert.equal((await stat(file)).size, before);
    assert.throws(() => out.append([bytes('z')]), (err) => err === first, 'a failed file stays failed');
    out.close();
    const content = await readFile(file);
    assert.ok(content.equals(Buffer.alloc(8 * 1024, 1)));
  });
});

describe('chunksAfter (resuming after a short write)', () => {
  const parts = [bytes('abc'), bytes(''), bytes('defg'), bytes('hi')];
  const joined = (cs: readonly Uint8Array[]): string => Buffer.concat(cs).toString('latin1');

  test('every split point leaves exactly the unwritten bytes', () => {
    const all = joined(parts);
    for (let n = 0; n <= all.length; n++) assert.equal(joined(chunksAfter(parts, n)), all.slice(n), `after ${n} bytes`);
  });

  test('a partly written chunk becomes a view of its rest; whole chunks are dropped', () => {
    const rest = chunksAfter(parts, 4);
    assert.equal(rest.length, 2);
    assert.ok(rest[0]!.buffer === parts[2]!.buffer && rest[0]!.byteOffset === parts[2]!.byteOffset + 1, 'a view, not a copy');
    assert.equal(joined([rest[0]!]), 'efg');
    assert.deepEqual(chunksAfter(parts, 9), []);
    assert.equal(parts[2]!.toString('latin1'), 'defg', 'the caller\'s chunks are untouched');
  });
});
