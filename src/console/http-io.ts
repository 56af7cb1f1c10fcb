/**
 * Reading requests and writing answers for the console's API: JSON bodies
 * with a size cap, query parameters checked once where they enter, JSON
 * answers that no browser caches or sniffs.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ConsoleError } from './console-errors.js';

/** Largest JSON body accepted (a list of seeds, a regex). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Headers every answer carries. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
});

export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(bytes.length), ...extra });
  res.end(bytes);
}

/** An HTML page held in memory (the viewer's page), cacheable as the static files are. */
export function sendPage(res: ServerResponse, html: string): void {
  const bytes = Buffer.from(html, 'utf8');
  res.writeHead(200, { ...COMMON_HEADERS, 'Cache-Control': 'no-cache', 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(bytes.length) });
  res.end(bytes);
}

export function sendError(res: ServerResponse, err: ConsoleError, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status, { error: { code: err.code, message: err.message } }, extra);
}

/** The request's JSON body (an object), or 400; 413 past MAX_BODY_BYTES. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ConsoleError(413, 'ARCHIVER_CONSOLE_TOO_LARGE', `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Query parameters of one request, each checked as it is read. */
export class Query {
  readonly #params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.#params = params;
  }

  /** A string parameter; null when absent or empty. */
  string(name: string): string | null {
    const v = this.#params.get(name);
    return v === null || v === '' ? null : v;
  }

  /** A whole number in [min, max]; `fallback` when absent; 400 otherwise. */
  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === null) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw badRequest(`${name} must be a whole number from ${min} to ${max}, got ${raw}`);
    return n;
  }

  /** An optional whole number in [min, max]; null when absent. */
  optionalInt(name: string, min: number, max: number): number | null {
    return this.string(name) === null ? null : this.int(name, 0, min, max);
  }

  /** One of `allowed`, or `fallback` when absent; 400 otherwise. */
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T;
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: null): T | null;
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T | null): T | null {
    const raw = this.string(name);
    if (raw === null) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) throw badRequest(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
    return raw as T;
  }

  /** Every value of a repeated parameter. */
  all(name: string): string[] {
    return this.#params.getAll(name).filter((v) => v !== '');
  }
}

/** Epoch ms as ISO 8601 in UTC, null stays null. */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

/** Write, waiting for the client to drain when it is slow; false once the client is gone. */
export async function writeChunk(res: ServerResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    await Promise.race([once(res, 'drain'), once(res, 'close')]).catch(() => undefined);
  }
  return !res.destroyed;
}
