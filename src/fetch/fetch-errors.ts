/**
 * Maps transport failures (socket errors, undici errors, our own DNS and
 * timeout signals) onto FetchError with Heritrix's negative fetch statuses.
 * The crawl loop decides retries from `fetchStatus` (-1/-2/-3 keep the URI at
 * its queue head), so every failure must land in exactly one kind.
 */
import { FetchError } from '../core/errors.js';

/** One entry per kind of transport failure: stable code and Heritrix status. */
export const FetchFailure = {
  dns: { code: 'ARCHIVER_FETCH_DNS', fetchStatus: -1 },
  connect: { code: 'ARCHIVER_FETCH_CONNECT', fetchStatus: -2 },
  connectionLost: { code: 'ARCHIVER_FETCH_CONNECTION_LOST', fetchStatus: -3 },
  timeout: { code: 'ARCHIVER_FETCH_TIMEOUT', fetchStatus: -4 },
  other: { code: 'ARCHIVER_FETCH_OTHER', fetchStatus: -5 },
  /** The caller's AbortSignal fired; not a property of the host, never retried as such. */
  aborted: { code: 'ARCHIVER_FETCH_ABORTED', fetchStatus: -5 },
  unfetchable: { code: 'ARCHIVER_FETCH_UNFETCHABLE', fetchStatus: -7 },
} as const;
export type FetchFailureKind = keyof typeof FetchFailure;

export function fetchError(kind: FetchFailureKind, message: string, cause?: unknown): FetchError {
  const { code, fetchStatus } = FetchFailure[kind];
  return new FetchError(code, fetchStatus, message, cause === undefined ? undefined : { cause });
}

// Socket-level errno codes, grouped the way Heritrix groups Java's exceptions.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN', 'ENETDOWN']);
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** The kind of a failure raised below the HTTP layer, judged by its errno/undici code. */
export function failureKindOf(err: unknown): FetchFailureKind {
  if (err instanceof FetchError) {
    for (const [kind, entry] of Object.entries(FetchFailure)) if (entry.code === err.code) return kind as FetchFailureKind;
    return 'other';
  }
  // Happy-eyeballs connects fail with an AggregateError whose parts carry the codes.
  if (err instanceof AggregateError && err.errors.length > 0) return failureKindOf(err.errors[0]);
  const code = codeOf(err);
  if (code === undefined) return 'other';
  if (DNS_CODES.has(code)) return 'dns';
  if (CONNECT_CODES.has(code)) return 'connect';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (LOST_CODES.has(code)) return 'connectionLost';
  if (code === 'UND_ERR_INVALID_ARG') return 'unfetchable';
  return 'other';
}

/** Wrap any transport failure as a FetchError (an existing FetchError passes through). */
export function toFetchError(err: unknown, url: string): FetchError {
  if (err instanceof FetchError) return err;
  const kind = failureKindOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  return fetchError(kind, `${kindLabel(kind)} fetching ${url}: ${detail}`, err);
}

/** Errno codes an operator reads better in words; the rest fall back to their kind's label. */
const CAUSE_WORDS: Readonly<Record<string, string>> = Object.freeze({
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'no such host (DNS)',
  EAI_NONAME: 'no such host (DNS)',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
});

/** What went wrong, in a few words for a summary (`connection refused`, `no such host (DNS)`, `timed out`). */
export function transportCause(err: unknown): string {
  return wordsFor(err, 0) ?? kindLabel(failureKindOf(err));
}

/** The first errno code with words along the chain of causes (and a connect's AggregateError parts). */
function wordsFor(err: unknown, depth: number): string | undefined {
  const code = firstCode(err, (c) => CAUSE_WORDS[c] !== undefined, depth);
  return code === undefined ? undefined : CAUSE_WORDS[code];
}

/** The resolver's answers that the name does not exist (getaddrinfo's EAI_NONAME, which Node calls ENOTFOUND). */
const NAME_NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_NONAME']);

/**
 * Whether DNS said the host's name does not exist: an answer, not a
 * failure to get one (EAI_AGAIN). Resolvers cache it (RFC 2308), so asking
 * again seconds later gets the same answer.
 */
export function nameNotFound(err: unknown): boolean {
  return firstCode(err, (c) => NAME_NOT_FOUND_CODES.has(c), 0) !== undefined;
}

/** The first code `wanted` accepts along the chain of causes (and a connect's AggregateError parts). */
function firstCode(err: unknown, wanted: (code: string) => boolean, depth: number): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 8) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && wanted(code)) return code;
  if (err instanceof AggregateError && err.errors.length > 0) return firstCode(err.errors[0], wanted, depth + 1);
  const cause = (err as { cause?: unknown }).cause;
  return cause === err ? undefined : firstCode(cause, wanted, depth + 1);
}

function kindLabel(kind: FetchFailureKind): string {
  switch (kind) {
    case 'dns': return 'DNS lookup failed';
    case 'connect': return 'connection failed';
    case 'connectionLost': return 'connection lost';
    case 'timeout': return 'timed out';
    case 'aborted': return 'aborted';
    case 'unfetchable': return 'unfetchable URL';
    case 'other': return 'fetch failed';
  }
}

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (err as { cause?: unknown }).cause;
  return cause === undefined || cause === err ? undefined : codeOf(cause);
}
