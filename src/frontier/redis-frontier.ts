/**
 * One node's view of a frontier shared by several processes through Redis:
 * Heritrix's work-queue state machine (SharedWorkQueueFrontier) over
 * the queues this node holds a lease on (RedisQueueStore), and a tick that
 * keeps the node in the crawl — URIs other nodes scheduled into its queues
 * come in, its leases are renewed, expired or dead nodes' leases are
 * released, queues waiting for a node are taken on while this node has
 * less than its share, and, once nothing is left here, the whole crawl is
 * checked for the end. next() resolves null only when the crawl is over
 * everywhere (or on abort or close).
 *
 * Queue precedence (precedence.ts) orders the queues this node holds, ready
 * and inactive, as in one process; there is no crawl-wide order: a queue
 * waiting for a node is taken on by whichever node has room, in the pending
 * set's order, whatever its rank, and a queue taken on has its rank read
 * from its URIs (redis-queue-store.ts), not from its saved figures.
 *
 * The conformance suite (test/frontier/conformance.ts) runs against it with
 * one node: its manual clock drives the state machine; leases run on Redis
 * TIME, untouched by that clock.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import type { CrawlKeys } from '../store/redis/crawl-keys.js';
import type { RedisLink } from '../store/redis/redis-link.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import type { Claim, Frontier, FrontierStats, Outcome, QueueQuery, QueueReport } from './frontier.js';
import { RedisQueueStore, type CrawlQueueFigures } from './redis-queue-store.js';
import type { FrontierInitOptions } from './frontier-init.js';
import type { QueueMeta } from './queue-meta.js';
import { SharedWorkQueueFrontier } from './shared-work-queue-frontier.js';

/** What a node knows of the crawl's other nodes (crawl coordination keeps it up to date). */
export interface NodeView {
  /** Ids of live nodes, this one included. */
  live(): readonly string[];
  /**
   * Incarnations (`node.n`) of nodes whose heartbeat stopped, as they last
   * said: their leases and inboxes are released. An incarnation, not a node
   * id: a node restarted under its id is a new incarnation, whose leases a
   * view that has not yet seen it come back must not release.
   */
  deadIncarnations(): readonly string[];
  /** Every node id the crawl has seen. */
  all(): readonly string[];
  /** Queues holding URIs per live node, as each last said. */
  busyQueues(): ReadonlyMap<string, number>;
  /**
   * Whether the crawl may end: null while a live node is queueing seeds,
   * else how many seedings nodes have begun. Asked of the store (a node that
   * joined a moment ago counts) before and after a look at the queues, and
   * the two answers must agree: a seed a node has reserved in the seen
   * filter but not yet queued is in no queue, so an idle look at the queues
   * alone found the crawl over and ended this node with nothing fetched.
   */
  mayFinish(): Promise<number | null>;
}

/** A view for one node alone. */
export function soleNodeView(node: string): NodeView {
  return { live: () => [node], deadIncarnations: () => [], all: () => [node], busyQueues: () => new Map(), mayFinish: async () => 0 };
}

export interface RedisFrontierInit extends FrontierInitOptions {
  link: RedisLink;
  keys: CrawlKeys;
  /** This node's id. */
  node: string;
  /** Tells sort keys of this process apart (0-65535; the node's incarnation number). */
  ordinalTag: number;
  /** Counter the process's discovery ordinals start from (rough first-come order across nodes). */
  ordinalBase: number;
  view: NodeView;
  /** Lease lifetime (default 10 s); renewed every `renewMs` (default 1 s). */
  leaseMs?: number;
  renewMs?: number;
  /** How often the inbox is read (default 200 ms). */
  tickMs?: number;
  /**
   * Added to every politeness delay (default 0). A node ends a host's fetch
   * when the body is in; a busy server may log the response's end some ms
   * later, and the gap it sees between two nodes' requests must still be the
   * profile's (the backend's grows with the machine's load: load-slack.ts).
   */
  delaySlackMs?: number | (() => number);
}

const STRIDE = 65536;
/** How closely nodes' clocks agree (each follows Redis TIME, from its shortest round trip): added to a taken-over queue's wake time. */
const CLOCK_MARGIN_MS = 5;
const DEFAULT_LEASE_MS = 10_000;
/** A lease this close to its end counts as ended: Redis's clock and this one's, and the trip between. */
const LEASE_MARGIN_MS = 50;
const LOST_KEPT_MS = 60_000;
/** Queues are handed on at most this often. */
const DETACH_EVERY_MS = 3000;

export class RedisFrontier implements Frontier {
  readonly #local: SharedWorkQueueFrontier;
  readonly #store: RedisQueueStore;
  readonly #view: NodeView;
  readonly #renewMs: number;
  readonly #slack: () => number;
  readonly #timer: NodeJS.Timeout;
  #lastRenew = 0;
  /**
   * When the last renewal that came back was sent: every lease this node
   * holds runs at least `leaseMs` from then (a queue taken on later, from
   * its own taking).
   */
  #renewedAt: number;
  readonly #leaseMs: number;
  /** Queues lost at renewals, with when the renewal was sent (kept a minute): a claim taken before is void. */
  readonly #lostAt = new Map<string, number>();
  #lastDetach = 0;
  #pending = 0;
  #ticking: Promise<void> | null = null;
  #checking = false;
  #closed = false;
  /** The last error of a tick (Redis trouble is retried inside the link; this is anything else). */
  #failure: unknown = null;

  private constructor(local: SharedWorkQueueFrontier, store: RedisQueueStore, init: RedisFrontierInit, openedAt: number) {
    this.#local = local;
    this.#renewedAt = openedAt;
    this.#leaseMs = init.leaseMs ?? DEFAULT_LEASE_MS;
    this.#store = store;
    this.#view = init.view;
    this.#renewMs = init.renewMs ?? 1000;
    const slack = init.delaySlackMs ?? 0;
    this.#slack = typeof slack === 'number' ? () => slack : slack;
    this.#timer = setInterval(() => this.#tick(), init.tickMs ?? 200);
    this.#timer.unref();
  }

  static async open(init: RedisFrontierInit): Promise<RedisFrontier> {
    const ref: { self: RedisFrontier | null } = { self: null };
    const openedAt = Date.now();
    const store = new RedisQueueStore({
      link: init.link,
      keys: init.keys,
      node: init.node,
      token: `${init.node}.${init.ordinalTag}`,
      leaseMs: init.leaseMs ?? DEFAULT_LEASE_MS,
      ordinalBase: init.ordinalBase,
      room: () => (ref.self === null ? 1e9 : ref.self.#room()),
    });
    const local = await SharedWorkQueueFrontier.open({
      ...init,
      store,
      shared: {
        store,
        ordinalStride: STRIDE,
        ordinalTag: init.ordinalTag % STRIDE,
        clockMarginMs: CLOCK_MARGIN_MS,
        onLocalIdle: () => ref.self?.checkFinished(),
        onRetired: (key) => void store.retire(key).catch((err: unknown) => ref.self?.fail(err)),
      },
    });
    ref.self = new RedisFrontier(local, store, init, openedAt);
    return ref.self;
  }

  schedule(uris: readonly CrawlUri[]): Promise<void> {
    this.#throwIfFailed();
    return this.#local.schedule(uris);
  }

  /**
   * A claim is handed out only under a lease known to be alive: a node that
   * went a whole lease without a renewal coming back (a stalled event loop,
   * a slow Redis) may have lost the queue to another node, which would
   * fetch the same URIs. It renews first, and a claim whose queue went
   * elsewhere is dropped.
   */
  async next(signal?: AbortSignal): Promise<Claim | null> {
    for (;;) {
      this.#throwIfFailed();
      const claim = await this.#local.next(signal);
      if (claim === null || Date.now() < this.#renewedAt + this.#leaseMs - LEASE_MARGIN_MS) return claim;
      const claimedAt = Date.now();
      await this.#renewedSince(claimedAt);
      if ((this.#lostAt.get(claim.queueKey) ?? -Infinity) < claimedAt) return claim;
      // Another node's queue now: this one forgets the claim (its URI is that node's to fetch).
      await this.#local.finished(claim, { kind: 'defer', delayMs: 0 });
    }
  }

  /** Once a renewal sent at or after `t` has come back. */
  async #renewedSince(t: number): Promise<void> {
    while (this.#renewedAt < t && !this.#closed) {
      this.#throwIfFailed();
      if (this.#ticking === null) {
        this.#lastRenew = 0;
        this.#tick();
      }
      await this.#ticking;
    }
  }

  /** A background step failed: the next schedule() or next() throws it. */
  fail(err: unknown): void {
    this.#failure ??= err;
  }

  #throwIfFailed(): void {
    if (this.#failure !== null) throw new FrontierError(FrontierErrorCode.storeFailed, 'the shared frontier failed in the background', { cause: this.#failure });
  }

  released(claim: Claim, delayMs: number): Promise<void> {
    return this.#local.released(claim, this.#slacked(delayMs));
  }

  finished(claim: Claim, outcome: Outcome): Promise<void> {
    return this.#local.finished(claim, outcome.delayMs > 0 ? { ...outcome, delayMs: this.#slacked(outcome.delayMs) } : outcome);
  }

  /** A delay with the slack added (none is added to no delay: back-to-back fetches promise no gap). */
  #slacked(delayMs: number): number {
    return delayMs > 0 ? delayMs + this.#slack() : delayMs;
  }

  stats(): FrontierStats {
    return this.#local.stats();
  }

  queues(query?: QueueQuery): QueueReport[] {
    return this.#local.queues(query);
  }

  /** The crawl's queues over all nodes (for status pages). */
  figures(): Promise<CrawlQueueFigures> {
    return this.#store.figures();
  }

  /** Queues holding URIs on this node. */
  get busyQueues(): number {
    return this.#local.busyQueues;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#ticking;
    await this.#local.close();
  }

  /** How many queues without a node an add may take on now: this node's share less what it holds. */
  #room(): number {
    const live = this.#view.live().length;
    if (live <= 1) return 1e9;
    return Math.max(0, this.#share() - this.#local.busyQueues);
  }

  #share(): number {
    const live = Math.max(1, this.#view.live().length);
    let busy = 0;
    for (const n of this.#view.busyQueues().values()) busy += n;
    return Math.max(1, Math.ceil((this.#pending + busy) / live));
  }

  #tick(): void {
    if (this.#closed || this.#ticking !== null) return;
    this.#ticking = this.#tickOnce()
      .catch((err: unknown) => {
        this.#failure ??= err;
      })
      .finally(() => {
        this.#ticking = null;
      });
  }

  async #tickOnce(): Promise<void> {
    const arrived = await this.#store.drain();
    if (arrived.length > 0) await this.#local.arrive(arrived);
    const now = Date.now();
    if (now - this.#lastRenew >= this.#renewMs) {
      this.#lastRenew = now;
      const { lost, pending } = await this.#store.renew(this.#view.deadIncarnations());
      this.#pending = pending;
      for (const [key, at] of this.#lostAt) if (at < now - LOST_KEPT_MS) this.#lostAt.delete(key);
      for (const key of lost) this.#lostAt.set(key, now);
      if (lost.length > 0) await this.#local.lose(lost);
      this.#renewedAt = now;
      // More than a share (a node that started first took every seed's queue): hand the rest on,
      // at most every few seconds, so that the others' figures catch up before the next look.
      const excess = this.#local.busyQueues - this.#share();
      if (this.#view.live().length > 1 && excess > 0 && now - this.#lastDetach >= DETACH_EVERY_MS) {
        this.#lastDetach = now;
        await this.#release(await this.#local.detach(excess));
      }
    }
    if (this.#pending > 0) {
      const want = this.#local.idle ? Math.max(1, this.#share()) : this.#share() - this.#local.busyQueues;
      if (want > 0) {
        const adopted = await this.#store.adopt(Math.min(want, this.#pending), (granted) => this.#local.adopting(granted));
        this.#pending = Math.max(0, this.#pending - adopted.size);
        if (adopted.size > 0) await this.#local.adopt(adopted);
      }
    }
    if (this.#local.idle) this.checkFinished();
  }

  /**
   * Nothing is left here, yet the crawl goes on: queues this node holds may
   * have URIs in the store that it does not count. Two- and three-node
   * crawls of the bench web (bench/distributed.ts, 0 ms, two cores) did not
   * end in 3 of 20: in one, a URI sat in the store of a queue its holder
   * had exhausted, the lease renewed for ever. The cause, found since: a URI
   * this node put into a queue the store had just granted it, before the
   * adoption was applied here (SharedWorkQueueFrontier.adopting() now counts
   * it). This stays as the store's word over the count: such queues are
   * handed on as detach() hands queues on (their figures kept, the lease
   * released), and their next holder, maybe this node, takes them up with
   * the store's count. Before the cause was found, 20 crawls of 20 ended
   * with this, an idle node handing on 1–4 queues in 3; since, it found none
   * to hand on in 20.
   */
  async #handOnUncounted(): Promise<void> {
    // Finished URIs' deletes are written behind: written first, a queue they empty holds no URIs in the store.
    await this.#local.flush();
    const held = await this.#store.heldWithUris();
    if (held.length === 0) return;
    await this.#release(await this.#local.handOnUncounted(held));
  }

  /** Queues dropped here, released in the store once their finished URIs' deletes have landed: pending for any node. */
  async #release(given: ReadonlyMap<string, QueueMeta>): Promise<void> {
    if (given.size === 0) return;
    await this.#local.flush();
    await this.#store.release(given);
    this.#pending += given.size;
  }

  /** Nothing left here: is the crawl over everywhere? (one check at a time) */
  checkFinished(): void {
    if (this.#checking || this.#closed) return;
    this.#checking = true;
    void (async () => {
      try {
        // Around the look at the queues: no node queueing seeds, before or after, and none began meanwhile.
        const before = await this.#view.mayFinish();
        if (before === null) return;
        const arrived = await this.#store.drain();
        if (arrived.length > 0) return void (await this.#local.arrive(arrived));
        if (!this.#local.idle) return;
        if (!(await this.#store.idle(this.#view.all()))) return void (await this.#handOnUncounted());
        if (!this.#local.idle) return;
        if ((await this.#view.mayFinish()) === before && this.#local.idle) this.#local.finishShared();
      } catch (err) {
        this.#failure ??= err;
      } finally {
        this.#checking = false;
      }
    })();
  }
}
