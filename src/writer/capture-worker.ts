/**
 * The program of the capture thread (capture-thread.ts): builds one
 * capture's three WARC records (warcio serialisation, block and payload
 * digests, the payload check) and compresses each to its gzip member, with
 * the same code the writer runs in-process. Requests come in the
 * BatchedWorker protocol; a failure (a digest mismatch included) is
 * answered as an error, and the writer redoes that capture in-process,
 * where the same error is raised with its code.
 */
import { serveBatches } from '../core/batch-server.js';
import { bufferBody } from '../core/buffer-body.js';
import { captureMembers } from './capture-members.js';
import { syncGzip } from './gzip-member.js';
import type { CaptureRecordInput, WarcVersion } from './warc-records.js';

/** A capture as it travels: the exchange's body as bytes, its Buffers as plain bytes. */
export interface CaptureRequest {
  capture: Omit<CaptureRecordInput, 'exchange'> & { exchange: Omit<CaptureRecordInput['exchange'], 'body' | 'requestHead'> & { requestHead: Uint8Array } };
  body: Uint8Array;
  version: WarcVersion;
}

export interface CaptureReply {
  members: [ArrayBuffer, ArrayBuffer, ArrayBuffer];
  mainId: string;
  revisit: boolean;
}


async function build(req: CaptureRequest): Promise<CaptureReply> {
  const ex = req.capture.exchange;
  const capture: CaptureRecordInput = {
    ...req.capture,
    exchange: { ...ex, requestHead: Buffer.from(ex.requestHead.buffer, ex.requestHead.byteOffset, ex.requestHead.byteLength), body: bufferBody(req.body) },
  };
  const m = await captureMembers(capture, req.version, syncGzip);
  const members = [m.main, m.request, m.metadata].map((member) => {
    if (!Buffer.isBuffer(member)) throw new Error('record too large for the capture thread');
    return member.buffer.slice(member.byteOffset, member.byteOffset + member.length) as ArrayBuffer;
  }) as [ArrayBuffer, ArrayBuffer, ArrayBuffer];
  return { members, mainId: m.mainId, revisit: m.revisit };
}

serveBatches('arch-capture', build, (reply) => reply.members);
