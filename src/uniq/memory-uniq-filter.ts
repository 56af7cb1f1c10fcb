/**
 * An in-memory already-seen filter (a Set of Heritrix keys) for tests and
 * tiny crawls. Same keys and canonicalization as the LevelDB filter, so the
 * two agree on what counts as seen; nothing survives close().
 */
import { canonicalizeForSeen } from '../url/canonicalize.js';
import { createKey, hostPrefixBytes } from './heritrix-key.js';
import { BatchedUriUniqFilter, UniqFilterClosedError, type BeforeCommit } from './uniq-filter.js';

export class MemoryUriUniqFilter extends BatchedUriUniqFilter {
  readonly #keys = new Set<bigint>();
  #closed = false;

  async addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    this.#checkOpen();
    // The check-and-add is synchronous, so concurrent calls cannot interleave;
    // keys are taken at once and given back if beforeCommit fails.
    const added: bigint[] = [];
    const fresh = urls.map((url) => {
      const key = keyOf(url);
      if (this.#keys.has(key)) return false;
      this.#keys.add(key);
      added.push(key);
      return true;
    });
    if (beforeCommit) {
      try {
        await beforeCommit(fresh);
      } catch (err) {
        for (const key of added) this.#keys.delete(key);
        throw err;
      }
    }
    return fresh;
  }

  async forget(url: string): Promise<void> {
    this.#checkOpen();
    this.#keys.delete(keyOf(url));
  }

  async forgetHost(url: string): Promise<number> {
    this.#checkOpen();
    const p = hostPrefixBytes(canonicalizeForSeen(url));
    const prefix = (BigInt(p[0] as number) << 16n) | (BigInt(p[1] as number) << 8n) | BigInt(p[2] as number);
    let forgotten = 0;
    for (const key of this.#keys) {
      if ((BigInt.asUintN(64, key) >> 40n) === prefix) {
        this.#keys.delete(key);
        forgotten++;
      }
    }
    return forgotten;
  }

  async count(): Promise<number> {
    this.#checkOpen();
    return this.#keys.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#keys.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new UniqFilterClosedError();
  }
}

function keyOf(url: string): bigint {
  return createKey(canonicalizeForSeen(url));
}
