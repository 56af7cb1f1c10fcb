/**
 * How long a crawl has left, for the progress display (issue 28: a 1,176-URI
 * site under the default 3 s delay ran for an hour and nothing said so).
 * The estimate is what is queued over the recent rate of URIs ended (captured
 * or given up), measured over a sliding window so one slow fetch or a burst
 * of robots.txt does not swing it; it is never less than the politeness
 * floor of the fullest queue, whose URIs come one delay apart however many
 * workers wait — the bound that matters when one host holds most of the work.
 */
import type { Profile } from '../config/profile.js';
import type { Clock } from '../core/clock.js';
import type { Frontier } from '../frontier/frontier.js';

/** Rates are measured over this much of the recent past. */
const WINDOW_SEC = 60;
/** How often the fullest queue is looked for: listing the queues is not free. */
const FLOOR_EVERY_MS = 5000;

export interface EtaSample {
  /** This run's elapsed seconds. */
  sec: number;
  /** URIs ended so far (captured + given up). */
  ended: number;
  /** URIs queued and not ended. */
  queued: number;
}

export class EtaEstimator {
  readonly #samples: Array<{ sec: number; ended: number }> = [];

  /** Seconds left, or null while no rate is known (nothing ended yet in the window) and no floor applies. */
  estimate(s: EtaSample, floorSec = 0): number | null {
    this.#samples.push({ sec: s.sec, ended: s.ended });
    while (this.#samples.length > 2 && this.#samples[1]!.sec <= s.sec - WINDOW_SEC) this.#samples.shift();
    if (s.queued === 0) return 0;
    const first = this.#samples[0]!;
    const dt = s.sec - first.sec;
    const rate = dt > 0 ? (s.ended - first.ended) / dt : 0;
    if (rate <= 0) return floorSec > 0 ? floorSec : null;
    return Math.max(s.queued / rate, floorSec);
  }
}

/**
 * The least time the fullest queue needs: its URIs one politeness delay
 * apart (minDelayMs, the smallest delay the profile allows), over the
 * connections a host may have.
 */
export function politenessFloorSec(largestQueue: number, profile: Pick<Profile, 'politeness'>): number {
  const { minDelayMs, maxConnectionsPerHost } = profile.politeness;
  return (largestQueue * minDelayMs) / maxConnectionsPerHost / 1000;
}

/** The fullest queue's politeness floor, looked for every few seconds. */
export class PolitenessFloor {
  readonly #frontier: Pick<Frontier, 'queues'>;
  readonly #profile: Pick<Profile, 'politeness'>;
  readonly #clock: Clock;
  #at = -Infinity;
  #largest = 0;

  constructor(frontier: Pick<Frontier, 'queues'>, profile: Pick<Profile, 'politeness'>, clock: Clock) {
    this.#frontier = frontier;
    this.#profile = profile;
    this.#clock = clock;
  }

  sec(): number {
    const now = this.#clock.now();
    if (now - this.#at >= FLOOR_EVERY_MS) {
      let largest = 0;
      for (const q of this.#frontier.queues()) if (q.state !== 'retired') largest = Math.max(largest, q.queued + q.inProcess);
      this.#at = now;
      this.#largest = largest;
    }
    return politenessFloorSec(this.#largest, this.#profile);
  }
}

/** `~45 s`, `~12 min`, `~2 h 05 min`, `~3 d 4 h` */
export function formatEta(sec: number): string {
  if (sec < 60) return `~${Math.max(1, Math.round(sec))} s`;
  const min = Math.round(sec / 60);
  if (min < 60) return `~${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `~${h} h ${String(min % 60).padStart(2, '0')} min`;
  return `~${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * One line for the start of a crawl whose politeness caps it far below what
 * its workers could do (fewer URIs a second than workers), e.g.
 * `1 host in scope, minDelayMs 3000: at most ~20 URIs/min (politeness.minDelayMs in the profile)`;
 * null otherwise. Hosts are the scope's entries (their subdomains and
 * transcluded embeds may add a few), so the cap is a guide, not a promise.
 */
export function politenessCapNote(profile: Pick<Profile, 'politeness' | 'scope' | 'workers'>): string | null {
  const { minDelayMs, maxConnectionsPerHost } = profile.politeness;
  const hosts = profile.scope.hosts.length;
  if (minDelayMs === 0 || hosts === 0 || profile.scope.include.length > 0) return null;
  const perSec = (hosts * maxConnectionsPerHost * 1000) / minDelayMs;
  if (perSec >= profile.workers) return null;
  const rate = perSec >= 10 ? `~${Math.round(perSec)} URIs/s` : `~${Math.round(perSec * 60)} URIs/min`;
  const conns = maxConnectionsPerHost > 1 ? `, ${maxConnectionsPerHost} connections per host` : '';
  return `${hosts} host${hosts === 1 ? '' : 's'} in scope, minDelayMs ${minDelayMs}${conns}: at most ${rate} (politeness.minDelayMs in the profile sets the delay)`;
}
