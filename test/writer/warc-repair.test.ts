/**
 * Resume's WARC repair (src/writer/warc-repair.ts) on files built here by
 * hand, one gzip member per record as the WARC spec's annex recommends, so
 * the expected cut points are the members' own byte lengths and not
 * anything our writer computed: a complete `.open` file is closed whole, a
 * file killed inside its last member is cut back to the end of the member
 * before, one without even a whole warcinfo is removed, and closed files
 * are never touched. nextWarcSerial continues after the highest serial.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { nextWarcSerial, repairOpenWarcs } from '../../src/writer/warc-repair.js';
import { mulberry32 } from '../helpers/prng.js';

let root: string;
before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'archiver-repair-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

let dirs = 0;
async function newDir(): Promise<string> {
  const dir = path.join(root, `d${dirs++}`);
  await mkdir(dir);
  return dir;
}

/** One WARC/1.1 record, gzipped on its own. */
function member(type: string, n: number, body: string): Buffer {
  const block = Buffer.from(body, 'utf8');
  const head = [
    'WARC/1.1',
    `WARC-Type: ${type}`,
    `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}>`,
    'WARC-Date: 2026-01-01T00:00:00Z',
    ...(type === 'warcinfo' ? ['Content-Type: application/warc-fields'] : [`WARC-Target-URI: http://a.test/${n}`, 'Content-Type: text/plain']),
    `Content-Length: ${block.length}`,
  ].join('\r\n');
  return gzipSync(Buffer.concat([Buffer.from(head + '\r\n\r\n'), block, Buffer.from('\r\n\r\n')]));
}

/** 24 KiB of text that does not compress, so a member cut half way already inflates to part of its record. */
function noise(seed: number): string {
  const next = mulberry32(seed);
  return Array.from({ length: 24 * 1024 }, () => String.fromCharCode(33 + Math.floor(next() * 90))).join('');
}

function members(count: number): Buffer[] {
  return [member('warcinfo', 0, 'software: hand-made\r\n'), ...Array.from({ length: count - 1 }, (_, i) => member('resource', i + 1, noise(i + 1)))];
}

const NAME = (serial: number): string => `WEB-20260101000000000-${String(serial).padStart(5, '0')}-4242~host.warc.gz`;

/** The record types in a file, read member by member with node:zlib. */
function typesIn(file: Buffer): string[] {
  return [...gunzipSync(file).toString('latin1').matchAll(/^WARC-Type: (\S+)\r$/gm)].map((m) => m[1]!);
}

describe('repairOpenWarcs', () => {
  it('closes a complete .open file whole, under its final name', async () => {
    const dir = await newDir();
    const bytes = Buffer.concat(members(3));
    await writeFile(path.join(dir, NAME(0) + '.open'), bytes);
    const repaired = await repairOpenWarcs(dir);
    assert.deepEqual(repaired, [{ file: path.join(dir, NAME(0)), records: 3, keptBytes: bytes.length, droppedBytes: 0 }]);
    assert.deepEqual(await readdir(dir), [NAME(0)]);
    assert.ok((await readFile(path.join(dir, NAME(0)))).equals(bytes));
  });

  for (const [what, cutAt] of [
    ['inside its gzip header', 5],
    ['half way through', 0.5],
    ['one byte before its end (the gzip trailer)', -1],
  ] as const) {
    it(`cuts a file killed ${what} of its last member back to the member before`, async () => {
      const dir = await newDir();
      const ms = members(4);
      const last = ms[3]!;
      const cut = cutAt === -1 ? last.length - 1 : cutAt < 1 ? Math.floor(last.length * cutAt) : cutAt;
      const whole = Buffer.concat(ms.slice(0, 3));
      await writeFile(path.join(dir, NAME(2) + '.open'), Buffer.concat([whole, last.subarray(0, cut)]));
      const repaired = await repairOpenWarcs(dir);
      assert.deepEqual(repaired, [{ file: path.join(dir, NAME(2)), records: 3, keptBytes: whole.length, droppedBytes: cut }]);
      const kept = await readFile(path.join(dir, NAME(2)));
      assert.ok(kept.equals(whole), `kept ${kept.length} bytes, want the first three members (${whole.length})`);
      assert.deepEqual(typesIn(kept), ['warcinfo', 'resource', 'resource']);
    });
  }

  it('removes a file that holds not even a whole warcinfo record', async () => {
    const dir = await newDir();
    const info = members(1)[0]!;
    await writeFile(path.join(dir, NAME(5) + '.open'), info.subarray(0, info.length - 3));
    await writeFile(path.join(dir, NAME(6) + '.open'), Buffer.alloc(0));
    assert.deepEqual(await repairOpenWarcs(dir), []);
    assert.deepEqual(await readdir(dir), []);
  });

  it('leaves closed files alone, even a damaged one, and repairs each .open file', async () => {
    const dir = await newDir();
    const ms = members(3);
    const damagedClosed = Buffer.concat([...ms, ms[1]!.subarray(0, 20)]);
    await writeFile(path.join(dir, NAME(0)), damagedClosed);
    await writeFile(path.join(dir, NAME(1) + '.open'), Buffer.concat([...ms, ms[2]!.subarray(0, 30)]));
    await writeFile(path.join(dir, NAME(2) + '.open'), Buffer.concat(ms));
    const repaired = await repairOpenWarcs(dir);
    assert.deepEqual(repaired.map((r) => [path.basename(r.file), r.records, r.droppedBytes]), [[NAME(1), 3, 30], [NAME(2), 3, 0]]);
    assert.ok((await readFile(path.join(dir, NAME(0)))).equals(damagedClosed));
    assert.deepEqual((await readdir(dir)).sort(), [NAME(0), NAME(1), NAME(2)]);
  });
});

describe('nextWarcSerial', () => {
  it('is 0 in an empty directory and ignores files that are not WARCs of ours', async () => {
    const dir = await newDir();
    assert.equal(await nextWarcSerial(dir), 0);
    await writeFile(path.join(dir, 'notes.txt'), 'x');
    await writeFile(path.join(dir, 'WEB-2026-00009.warc.gz'), 'x');
    assert.equal(await nextWarcSerial(dir), 0);
  });

  it('follows the highest serial, closed or .open, whatever the order of names', async () => {
    const dir = await newDir();
    await writeFile(path.join(dir, NAME(3)), 'x');
    await writeFile(path.join(dir, 'WEB-20250101000000000-00011-1~other.warc.gz.open'), 'x');
    await writeFile(path.join(dir, 'WEB-20270101000000000-00007-1~host.warc.gz'), 'x');
    assert.equal(await nextWarcSerial(dir), 12);
    await writeFile(path.join(dir, 'WEB-20270101000000000-123456-1~host.warc.gz'), 'x');
    assert.equal(await nextWarcSerial(dir), 123457, 'serials past five digits keep counting');
  });
});
