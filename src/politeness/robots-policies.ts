/**
 * The robots policy of each host: the profile's, or the one an override
 * gives that host. Policies are built once per distinct set of robots
 * options (the overrides resolver shares one options object between all
 * hosts with the same matches), not once per host.
 */
import type { RobotsOptions } from '../config/profile.js';
import { createRobotsPolicy, type RobotsPolicy } from './robots-policy.js';

export class RobotsPolicies {
  readonly #optionsOf: (host: string) => RobotsOptions;
  readonly #userAgent: string;
  readonly #built = new WeakMap<RobotsOptions, RobotsPolicy>();

  /** `optionsOf` answers for a host as `host:port`. */
  constructor(optionsOf: (host: string) => RobotsOptions, userAgent: string) {
    this.#optionsOf = optionsOf;
    this.#userAgent = userAgent;
  }

  /** The policy for `host` (`host:port`). */
  of(host: string): RobotsPolicy {
    const opts = this.#optionsOf(host);
    let policy = this.#built.get(opts);
    if (policy === undefined) {
      policy = createRobotsPolicy(opts, this.#userAgent);
      this.#built.set(opts, policy);
    }
    return policy;
  }
}
