/**
 * What a work queue must remember across a restart besides its URIs: the
 * figures that decide when and whether it may hand out its next URI. One
 * small record per queue (never per URI), and one per host with the epoch
 * ms its gate opens again (a host's delay binds every queue holding its
 * URLs, which under ELF hashing is many). Each queue store keeps them its
 * own way (queue-store.ts); the keys below are LevelQueueStore's: in the
 * frontier's LevelDB range, `0xFF queueKey` and `0xFE host:port`. UTF-8
 * never produces 0xFE or 0xFF, so these keys sort after every URI entry
 * (`queueKey \0 sortKey`) and stay out of URI scans and queue range reads.
 * Like queue records, host records (one per host ever fetched with a
 * delay) are never deleted; both are small and bounded by the crawl's hosts.
 *
 * Spent budgets are saved as spent by URIs no longer in flight: a URI in
 * process at a crash is queued again on resume and charged when handed out
 * again, so counting its first claim too would charge it twice and retire
 * the queue earlier than an uninterrupted crawl would. (Every claim ends in
 * either 'done', which keeps its charge, or retry/defer, which refunds it.)
 *
 * Retirement is not saved: it follows from the saved total spent and the
 * profile's `queueTotalBudget`, so a retired queue is retired again on
 * resume — unless the profile raised the budget, which is what that means.
 *
 * A queue's figures are taken and given back by WorkQueue (meta(), restore()).
 */
export interface QueueMeta {
  /** URIs finished ('done'). */
  f: number;
  /** Budget spent over the queue's life by URIs not in flight. */
  t: number;
  /** Budget spent since the last activation by URIs not in flight. */
  s: number;
  /** Epoch ms before which the queue hands out nothing (0: no snooze). */
  w: number;
  /** In a session (ready, in-process or snoozed) rather than waiting its turn. */
  a: boolean;
  /** Its place in the inactive/ready rotation (frontier-wide counter when last listed inactive). */
  n: number;
  /**
   * Sort key (hex) of its next URI, saved while its head is not in memory
   * (an idle queue): with `p`, that URI's priority, it ranks the queue under
   * the `priority` precedence after a restart without reading its URIs.
   * Absent when not known; a record saved before these fields reads so.
   */
  k?: string;
  p?: number;
}

/** First key after every URI entry: host records start here. */
export const HOSTS_START: Buffer = Buffer.of(0xfe);
/** First queue metadata key, just after the host records. */
export const META_START: Buffer = Buffer.of(0xff);

export function hostKey(host: string): Buffer {
  return Buffer.concat([HOSTS_START, Buffer.from(host, 'utf8')]);
}

export function hostOfKey(key: Buffer): string {
  return key.toString('utf8', 1);
}

export function metaKey(queueKey: string): Buffer {
  return Buffer.concat([META_START, Buffer.from(queueKey, 'utf8')]);
}

export function queueKeyOfMeta(key: Buffer): string {
  return key.toString('utf8', 1);
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** Parse a stored record; missing or malformed fields read as a fresh queue's. */
export function parseMeta(json: string): QueueMeta {
  const raw = JSON.parse(json) as Partial<Record<keyof QueueMeta, unknown>>;
  return {
    f: num(raw.f),
    t: num(raw.t),
    s: num(raw.s),
    w: num(raw.w),
    a: raw.a === true,
    n: num(raw.n),
    ...(typeof raw.k === 'string' && /^(?:[0-9a-f]{2})+$/.test(raw.k) && typeof raw.p === 'number' && Number.isFinite(raw.p) ? { k: raw.k, p: raw.p } : {}),
  };
}
