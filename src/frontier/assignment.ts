/**
 * Queue assignment: which work queue a URL waits in. One tiny policy per
 * Heritrix QueueAssignmentPolicy we support, chosen by name from a table.
 * Politeness never depends on this choice — the host gate limits each host
 * whatever queue its URLs land in — so spreading one big site over many
 * queues (elfHash) is safe.
 */
import type { FrontierOptions, QueueAssignmentName } from '../config/profile.js';
import { surtAuthorityOf } from '../url/surt.js';
import { FrontierError, FrontierErrorCode } from './errors.js';

export interface QueueAssignmentPolicy {
  keyFor(url: URL): string;
  /**
   * Every queue holds one host (`host:port`) only. Then a held host's queue
   * simply snoozes; otherwise its URIs are set aside (set-aside.ts) so that
   * the other hosts of its queue go on.
   */
  readonly oneHostPerQueue: boolean;
}

/**
 * System V ELF hash over UTF-16 code units, as an unsigned 32-bit number
 * (the hash Heritrix's seed report uses to spread URIs over N queues).
 * `>>> 0` after each step keeps JS's signed 32-bit bit operations unsigned.
 */
export function elfHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = ((h << 4) + s.charCodeAt(i)) >>> 0;
    const g = (h & 0xf0000000) >>> 0;
    if (g !== 0) h = (h ^ (g >>> 24)) >>> 0;
    h = (h & ~g) >>> 0;
  }
  return h;
}

/** Heritrix HostnameQueueAssignmentPolicy: `host`, `host#port`; https without a port gets `#443`. */
export const hostnamePolicy: QueueAssignmentPolicy = Object.freeze({
  // `host` is http's port 80 only: any other port or https has its own `#port`.
  oneHostPerQueue: true,
  keyFor(url: URL): string {
    const host = url.hostname.toLowerCase();
    if (url.port !== '') return `${host}#${url.port}`;
    // Keeps https apart from http on the same host, as Heritrix does.
    if (url.protocol === 'https:') return `${host}#443`;
    return host;
  },
});

/** Heritrix SurtAuthorityQueueAssignmentPolicy: `com,example,www,` (http and https share it). */
export const surtAuthorityPolicy: QueueAssignmentPolicy = Object.freeze({
  // http and https of one host are two hosts (ports) in one queue.
  oneHostPerQueue: false,
  keyFor: (url: URL): string => surtAuthorityOf(url),
});

/** `elfHash(url or hostname) % buckets`, the key being the bucket number as a decimal string. */
export function elfHashPolicy(buckets: number, of: 'url' | 'host'): QueueAssignmentPolicy {
  if (!Number.isInteger(buckets) || buckets < 1) {
    throw new FrontierError(FrontierErrorCode.badOptions, `elfHashBuckets must be a positive integer, got ${buckets}`);
  }
  return Object.freeze({
    oneHostPerQueue: false,
    keyFor(url: URL): string {
      const basis = of === 'host' ? url.hostname.toLowerCase() : url.href;
      return String(elfHash(basis) % buckets);
    },
  });
}

const POLICIES: Readonly<Record<QueueAssignmentName, (o: FrontierOptions) => QueueAssignmentPolicy>> = Object.freeze({
  hostname: () => hostnamePolicy,
  surtAuthority: () => surtAuthorityPolicy,
  elfHash: (o: FrontierOptions) => elfHashPolicy(o.elfHashBuckets, o.elfHashOf),
});

/** The policy named by `options.queueAssignment`. */
export function queueAssignmentFor(options: Pick<FrontierOptions, 'queueAssignment' | 'elfHashBuckets' | 'elfHashOf'>): QueueAssignmentPolicy {
  const make = Object.hasOwn(POLICIES, options.queueAssignment) ? POLICIES[options.queueAssignment] : undefined;
  if (make === undefined) {
    throw new FrontierError(FrontierErrorCode.unknownPolicy, `unknown queue assignment "${String(options.queueAssignment)}"`);
  }
  return make(options as FrontierOptions);
}
