/** Reads every record of the WARC files in a directory with warcio's parser (for assertions). */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { WARCParser } from 'warcio';

export interface ReadRecord {
  file: string;
  type: string;
  url: string;
  warc: Map<string, string>;
  status: number | null;
  httpHeaders: Map<string, string>;
  /** The stored payload, content-encoding kept (isContent false). */
  payload: Buffer;
}

export async function warcFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.warc.gz') || f.endsWith('.warc')).sort().map((f) => path.join(dir, f));
}

export async function readWarcDir(dir: string): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for (const file of await warcFiles(dir)) {
    const parser = new WARCParser(createReadStream(file));
    for await (const record of parser) {
      const payload = Buffer.from(await record.readFully(false));
      const warc = new Map<string, string>();
      for (const [k, v] of record.warcHeaders.headers) warc.set(k.toLowerCase(), v);
      const http = new Map<string, string>();
      if (record.httpHeaders) for (const [k, v] of record.httpHeaders.headers) http.set(k.toLowerCase(), v);
      const statusText = record.httpHeaders?.statusCode;
      out.push({
        file,
        type: record.warcType ?? '',
        url: record.warcTargetURI ?? '',
        warc,
        status: statusText === undefined || statusText === null ? null : Number(statusText),
        httpHeaders: http,
        payload,
      });
    }
  }
  return out;
}
