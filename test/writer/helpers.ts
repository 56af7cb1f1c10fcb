/**
 * Test helpers for the writer: exchanges built in code, an independent
 * sha1/base32 digest, a file-backed BodyStore, and a reader that returns
 * every record of a WARC with its offsets (warcio's parser) and its raw
 * block (inflated member by member with node:zlib, not with warcio).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { bufferBody } from '../../src/core/buffer-body.js';
import type { BodyStore, HttpExchange } from '../../src/core/exchange.js';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * RFC 4648 base32 without padding (a sha1 is 32 characters exactly), done
 * the slow, obvious way on a string of bits so it shares nothing with the
 * code under test.
 */
export function base32(bytes: Uint8Array): string {
  const bitString = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  const groups = bitString.match(/.{1,5}/g) ?? [];
  return groups.map((g) => B32.charAt(parseInt(g.padEnd(5, '0'), 2))).join('');
}

export function sha1b32(...parts: Uint8Array[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return 'sha1:' + base32(h.digest());
}

export async function sha1b32OfFile(file: string): Promise<string> {
  const h = createHash('sha1');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return 'sha1:' + base32(h.digest());
}

/** A BodyStore over a file, streamed in 64 KiB chunks; counts stream() calls. */
export function fileBody(file: string, size: number): BodyStore & { streams: number } {
  const store = {
    size,
    streams: 0,
    async *stream(): AsyncIterable<Uint8Array> {
      store.streams++;
      for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) yield chunk as Buffer;
    },
    async head(maxBytes: number): Promise<Buffer> {
      const all = await readFile(file);
      return all.subarray(0, maxBytes);
    },
    async dispose(): Promise<void> {},
  };
  return store;
}

export interface ExchangeSpec {
  url: string;
  body?: Uint8Array;
  bodyStore?: BodyStore;
  status?: number;
  statusText?: string;
  headers?: Array<[string, string]>;
  truncated?: HttpExchange['truncated'];
  startedAt?: Date;
  payloadDigest?: string;
}

export function makeExchange(s: ExchangeSpec): HttpExchange {
  const bytes = s.body ?? Buffer.from(`<html>body of ${s.url}</html>`);
  const u = new URL(s.url);
  return {
    url: s.url,
    requestHead: Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUser-Agent: test/1.0 (+http://t.example/)\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n`),
    status: s.status ?? 200,
    statusText: s.statusText ?? 'OK',
    httpVersion: '1.1',
    responseHeaders: s.headers ?? [
      ['Content-Type', 'text/html; charset=utf-8'],
      ['Content-Length', String(bytes.length)],
    ],
    body: s.bodyStore ?? bufferBody(bytes),
    truncated: s.truncated ?? null,
    payloadDigest: s.payloadDigest ?? sha1b32(bytes),
    ip: '127.0.0.1',
    startedAt: s.startedAt ?? new Date('2026-11-29T12:00:00.123Z'),
    durationMs: 23,
  };
}

export interface ReadRecord {
  type: string;
  /** WARC header lines in file order (name as written). */
  warcHeaders: Array<[string, string]>;
  header(name: string): string | undefined;
  versionLine: string;
  /** The record block exactly as stored (HTTP head + payload for response/request). */
  block: Buffer;
  /** For http records: head text (up to and including CRLFCRLF) and payload bytes. */
  httpHead: string | null;
  payload: Buffer;
  offset: number;
  length: number;
}

/**
 * Parse a WARC file: warcio's parser gives each record's offset and length;
 * each gzip member is then inflated alone (zlib) and split into header and
 * block by hand, so the test does not trust one library for everything.
 */
export async function readWarc(file: string): Promise<ReadRecord[]> {
  const spans: Array<{ offset: number; length: number }> = [];
  const parser = new WARCParser(createReadStream(file));
  for await (const record of parser) {
    await record.readFully(false);
    spans.push({ offset: parser.offset, length: parser.recordLength });
  }
  const bytes = await readFile(file);
  const total = (await stat(file)).size;
  const out: ReadRecord[] = [];
  let expectedOffset = 0;
  for (const span of spans) {
    if (span.offset !== expectedOffset) throw new Error(`gap before record at ${span.offset}`);
    expectedOffset = span.offset + span.length;
    out.push(parseMember(bytes.subarray(span.offset, span.offset + span.length), span.offset));
  }
  if (expectedOffset !== total) throw new Error(`trailing bytes after the last record: ${expectedOffset} of ${total}`);
  return out;
}

/** Inflate one gzip member holding exactly one record and split it. */
export function parseMember(member: Uint8Array, offset: number): ReadRecord {
  const raw = gunzipSync(member);
  const headEnd = raw.indexOf('\r\n\r\n');
  const lines = raw.subarray(0, headEnd).toString('utf8').split('\r\n');
  const versionLine = lines.shift() ?? '';
  const warcHeaders = lines.map((l): [string, string] => {
    const i = l.indexOf(':');
    return [l.slice(0, i), l.slice(i + 1).trim()];
  });
  const header = (name: string): string | undefined => warcHeaders.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const contentLength = Number(header('Content-Length'));
  const block = raw.subarray(headEnd + 4, headEnd + 4 + contentLength);
  const rest = raw.subarray(headEnd + 4 + contentLength);
  if (rest.toString('latin1') !== '\r\n\r\n') throw new Error(`member at ${offset} does not end right after its record`);
  const type = header('WARC-Type') ?? '';
  let httpHead: string | null = null;
  let payload = block;
  if (/^application\/http/.test(header('Content-Type') ?? '')) {
    const end = block.indexOf('\r\n\r\n');
    httpHead = block.subarray(0, end + 4).toString('utf8');
    payload = block.subarray(end + 4);
  }
  return { type, warcHeaders, header, versionLine, block, httpHead, payload, offset, length: member.length };
}

/** Header pairs of an HTTP head, in order. */
export function httpHeaderPairs(head: string): Array<[string, string]> {
  return head
    .split('\r\n')
    .slice(1)
    .filter((l) => l !== '')
    .map((l): [string, string] => {
      const i = l.indexOf(':');
      return [l.slice(0, i), l.slice(i + 1).trim()];
    });
}
