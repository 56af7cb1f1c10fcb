/** DeflateFile: a raw DEFLATE stream made on the calling thread, chunk by chunk, into a file; its failures thrown where they happen. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DeflateFile } from '../../src/writer/deflate-file.js';
import { ArchiverError } from '../../src/core/errors.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-deflate-file-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The error a stream gives once it is ended, abandoned or failed. */
const isClosed = (e: unknown): boolean => e instanceof ArchiverError && e.code === 'ARCHIVER_FILE_CLOSED';

async function opened(file: string, level = 1): Promise<DeflateFile> {
  const d = await DeflateFile.open(file, level);
  assert.ok(d, 'node 20 has the zlib internals driven');
  return d;
}

test('chunks written one by one inflate to their concatenation, with output past one buffer, at levels 0, 1 and 6', async () => {
  const text = Buffer.from(Array.from({ length: 30_000 }, (_, i) => `{"url":"http://127.0.0.2/p${i % 997}.html","text":"word${(i * 31) % 89}"}\n`).join(''), 'utf8');
  // Text that deflates well, bytes that do not (more than the 64 KiB output buffer, several times), and empty writes.
  const chunks = [text.subarray(0, 65_536), Buffer.alloc(0), randomBytes(300_000), text.subarray(65_536), Buffer.from('\n')];
  const whole = Buffer.concat(chunks);
  for (const level of [0, 1, 6]) {
    const file = path.join(dir, `level-${level}.deflate`);
    const d = await opened(file, level);
    for (const c of chunks) d.write(c);
    d.end();
    const bytes = await readFile(file);
    assert.deepEqual(inflateRawSync(bytes), whole, `level ${level}`);
    // Deflating, the same bytes a one-shot deflate at that level makes: where the chunks end changes nothing.
    // (Storing, at level 0, it does: a stored block ends where a write's input does.)
    if (level > 0) assert.deepEqual(bytes, deflateRawSync(whole, { level }), `level ${level}`);
  }
  // Nothing written: still a valid, empty stream.
  const empty = path.join(dir, 'empty.deflate');
  (await opened(empty)).end();
  assert.equal(inflateRawSync(await readFile(empty)).length, 0);
});

test('a file opened again starts empty, and a stream that is ended or abandoned refuses more with ARCHIVER_FILE_CLOSED', async () => {
  const file = path.join(dir, 'again.deflate');
  const first = await opened(file);
  first.write(randomBytes(200_000));
  first.end();
  const second = await opened(file);
  second.write(Buffer.from('short'));
  second.end();
  assert.equal(inflateRawSync(await readFile(file)).toString(), 'short');
  assert.throws(() => second.write(Buffer.from('more')), isClosed);
  assert.throws(() => second.end(), isClosed);
  const abandoned = await opened(path.join(dir, 'abandoned.deflate'));
  abandoned.write(Buffer.from('text'));
  abandoned.abandon();
  abandoned.abandon();
  assert.throws(() => abandoned.write(Buffer.from('more')), isClosed);
});

test('a full disk: the write that meets it throws ENOSPC, and the stream is closed after it', async () => {
  // /dev/full takes no byte: every write fails with ENOSPC, as a full disk's would.
  const d = await opened('/dev/full');
  // Incompressible bytes past zlib's output buffer: output goes to the file within this write.
  assert.throws(() => d.write(randomBytes(200_000)), (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOSPC');
  assert.throws(() => d.write(Buffer.from('more')), isClosed);
});

test('opening a file in a folder that does not exist rejects, as fs does', async () => {
  await assert.rejects(DeflateFile.open(path.join(os.tmpdir(), 'archiver-no-such-folder', 'x', 'list.deflate'), 1), (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT');
});
