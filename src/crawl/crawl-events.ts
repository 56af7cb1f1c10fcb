/**
 * What a running crawl tells whoever watches it — the progress display, the
 * web console, tests — as typed events. A listener that throws is reported
 * once through `onListenerError` and never reaches the crawl: a broken
 * viewer must not stop a crawl.
 */
import type { QueueState } from '../frontier/frontier.js';
import type { CrawlStatus, CrawlState } from './crawl-status.js';

/** A response (or revisit) written to the WARCs. */
export interface CaptureEvent {
  url: string;
  status: number;
  mime: string;
  size: number;
  /** Epoch ms the crawl.log line was written. */
  time: number;
  hopPath: string;
  via: string | null;
  duplicate: boolean;
  /** Rendered in the browser after its fetch (src/browser/); absent otherwise. */
  rendered?: true;
}

/** A URI given up on: a negative status (robots, transport, runtime error). */
export interface FailureEvent {
  url: string;
  status: number;
  time: number;
  hopPath: string;
  via: string | null;
  annotations: readonly string[];
}

/** A discovered URI refused by scope (logged once per URL). */
export interface RefusalEvent {
  url: string;
  status: number;
  reason: string;
  time: number;
  hopPath: string;
  via: string | null;
}

export interface QueueStateEvent {
  key: string;
  from: QueueState;
  to: QueueState;
}

export interface HostWaitingEvent {
  host: string;
  reason: string;
  /** Epoch ms the wait ends. */
  until: number;
  retry: number;
  of: number;
}

export interface HostClosedEvent {
  host: string;
  status: number;
  annotation: string;
  cause: string;
}

export interface StateEvent {
  state: CrawlState;
  endReason: string | null;
}

export interface CrawlEventMap {
  capture: CaptureEvent;
  failure: FailureEvent;
  refusal: RefusalEvent;
  queue: QueueStateEvent;
  hostWaiting: HostWaitingEvent;
  hostClosed: HostClosedEvent;
  state: StateEvent;
  progress: CrawlStatus;
}

export type CrawlEventName = keyof CrawlEventMap;
type Listener<K extends CrawlEventName> = (event: CrawlEventMap[K]) => void;

export class CrawlEvents {
  readonly #listeners = new Map<CrawlEventName, Set<Listener<never>>>();
  readonly #onListenerError: (err: unknown) => void;
  #reported = false;

  constructor(onListenerError: (err: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  /** Listen; returns the function that stops listening. */
  on<K extends CrawlEventName>(name: K, listener: Listener<K>): () => void {
    let set = this.#listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    set.add(listener as Listener<never>);
    return () => {
      set.delete(listener as Listener<never>);
    };
  }

  /** Whether anyone listens (events are built only then). */
  has(name: CrawlEventName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0;
  }

  emit<K extends CrawlEventName>(name: K, event: CrawlEventMap[K]): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    for (const listener of set) {
      try {
        (listener as Listener<K>)(event);
      } catch (err) {
        if (!this.#reported) {
          this.#reported = true;
          this.#onListenerError(err);
        }
      }
    }
  }
}
