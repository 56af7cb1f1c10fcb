/**
 * MapStatusAndHeaders (src/writer/warcio.ts): the same text as warcio's own
 * StatusAndHeaders.toString for every map the writer gives it, records made
 * through createRecord / createWarcInfo serialise to the same bytes as
 * warcio's, and writing a capture's records no longer makes Node load its
 * bundled fetch implementation (the ~35 ms per thread this class exists to
 * save). The last case runs in a child process: the test runner itself may
 * have loaded it already.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { OrderedHeaders } from '../../src/writer/http-block.js';
import { createRecord, createWarcInfo, HeadersMultiMap, MapStatusAndHeaders, StatusAndHeaders, WARCRecord, WARCSerializer } from '../../src/writer/warcio.js';

const run = promisify(execFile);

/** warcio's own method, called on the same object. */
const warcioText = (head: InstanceType<typeof StatusAndHeaders>): string => StatusAndHeaders.prototype.toString.call(head);

test('the text of a head is exactly what warcio writes for the same map', () => {
  const multi = new HeadersMultiMap();
  multi.append('Set-Cookie', 'a=1');
  multi.append('Set-Cookie', 'b=2');
  multi.set('Content-Type', 'text/html; charset=utf-8');
  multi.set('X-Empty', '');
  multi.append('WARC-Concurrent-To', '<urn:uuid:1>');
  multi.append('WARC-Concurrent-To', '<urn:uuid:2>');
  const maps = [
    multi,
    new OrderedHeaders([
      ['Server', 'nginx'],
      ['Link', '</a.css>; rel=preload'],
      ['Link', '</b.js>; rel=preload'],
      ['Content-Length', '12'],
    ]),
    new HeadersMultiMap(),
    new OrderedHeaders([['X-Odd', 'caf\u00e9 \u2014 \u00fc'], ['X-Empty', '']]),
  ];
  for (const headers of maps) {
    for (const statusline of ['HTTP/1.1 200 OK', 'WARC/1.1', 'HTTP/1.1 404']) {
      const head = new MapStatusAndHeaders({ statusline, headers });
      assert.equal(head.toString(), warcioText(head));
    }
  }
});

test('records made through createRecord and createWarcInfo serialise to the same bytes as warcio makes them', async () => {
  const opts = { gzip: false, digest: { algo: 'sha-1', prefix: 'sha1:', base32: true } } as const;
  const warcHeaders: [string, string][] = [
    ['WARC-Record-ID', '<urn:uuid:00000000-0000-4000-8000-000000000001>'],
    ['WARC-Concurrent-To', '<urn:uuid:00000000-0000-4000-8000-000000000002>'],
  ];
  const body = (): Iterable<Uint8Array> => [Buffer.from('hopsFromSeed: L\r\noutlink: http://a.example/ L a/@href\r\n')];
  const fields = { url: 'http://a.example/', date: '2026-12-02T10:00:00.123Z', warcVersion: 'WARC/1.1', type: 'metadata', warcHeaders } as const;
  const ours = await WARCSerializer.serialize(createRecord({ ...fields }, body()), opts);
  const theirs = await WARCSerializer.serialize(WARCRecord.create({ ...fields }, body()), opts);
  assert.equal(Buffer.from(ours).toString('latin1'), Buffer.from(theirs).toString('latin1'));

  const info = (): Parameters<typeof createWarcInfo>[0] => ({ filename: 'x.warc.gz', date: '2026-12-02T10:00:00Z', warcVersion: 'WARC/1.1', warcHeaders: [warcHeaders[0]!] });
  const infoFields = { software: 'archiver', isPartOf: 'site' };
  const ourInfo = await WARCSerializer.serialize(createWarcInfo(info(), infoFields), opts);
  const theirInfo = await WARCSerializer.serialize(WARCRecord.createWARCInfo(info(), infoFields), opts);
  assert.equal(Buffer.from(ourInfo).toString('latin1'), Buffer.from(theirInfo).toString('latin1'));
});

test("a capture's records are built without loading Node's bundled fetch (global Headers)", async () => {
  const records = new URL('../../src/writer/warc-records.js', import.meta.url).href;
  const helpers = new URL('./helpers.js', import.meta.url).href;
  const script = `
    const { buildCaptureRecords, buildWarcInfo } = await import(${JSON.stringify(records)});
    const { makeExchange } = await import(${JSON.stringify(helpers)});
    const ex = makeExchange({ url: 'http://a.example/page.html' });
    const built = await buildCaptureRecords({ exchange: ex, hopPath: 'L', via: 'http://a.example/', outlinks: [{ url: 'http://a.example/b', hop: 'L', context: 'a/@href' }] }, '1.1');
    await buildWarcInfo({ filename: 'x.warc.gz', openedAt: new Date(), version: '1.1', software: 'archiver', hostname: 'h', info: { userAgent: 'ua', robotsPolicy: 'obey', jobName: 'j' } });
    const loaded = process.moduleLoadList.some((m) => m.includes('internal/deps/undici'));
    // Touching the global afterwards must load it: the probe can tell.
    globalThis.Headers;
    const loadedAfter = process.moduleLoadList.some((m) => m.includes('internal/deps/undici'));
    console.log(JSON.stringify({ loaded, loadedAfter, id: built.mainId.length > 0 }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  assert.deepEqual(JSON.parse(stdout), { loaded: false, loadedAfter: true, id: true });
});
