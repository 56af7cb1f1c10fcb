/**
 * An in-memory already-seen filter (a KeyTable of Heritrix keys, 8-11
 * bytes per URL) for tests and crawls that need no resume. Same keys and canonicalization as the LevelDB filter, so the
 * two agree on what counts as seen; nothing survives close().
 */
import { canonicalizeForSeen } from '../url/canonicalize.js';
import { hostPrefixBytes, keyInto } from './heritrix-key.js';
import { KeyTable } from '../fingerprint/key-table.js';
import type { Fp64 } from '../fingerprint/rabin.js';
import { BatchedUriUniqFilter, UniqFilterClosedError, type BeforeCommit } from './uniq-filter.js';

export class MemoryUriUniqFilter extends BatchedUriUniqFilter {
  readonly #keys = new KeyTable();
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  #closed = false;

  async addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    this.#checkOpen();
    // The check-and-add is synchronous, so concurrent calls cannot interleave;
    // keys are taken at once and given back if beforeCommit fails.
    const added: number[] = [];
    const fresh = urls.map((url) => {
      const { hi, lo } = this.#keyOf(url);
      if (!this.#keys.add(hi, lo)) return false;
      added.push(hi, lo);
      return true;
    });
    if (beforeCommit) {
      try {
        await beforeCommit(fresh);
      } catch (err) {
        for (let i = 0; i < added.length; i += 2) this.#keys.delete(added[i] as number, added[i + 1] as number);
        throw err;
      }
    }
    return fresh;
  }

  async hasMany(urls: readonly string[]): Promise<boolean[]> {
    this.#checkOpen();
    return urls.map((url) => {
      const { hi, lo } = this.#keyOf(url);
      return this.#keys.has(hi, lo);
    });
  }

  async forget(url: string): Promise<void> {
    this.#checkOpen();
    const { hi, lo } = this.#keyOf(url);
    this.#keys.delete(hi, lo);
  }

  async forgetHost(url: string): Promise<number> {
    this.#checkOpen();
    const p = hostPrefixBytes(canonicalizeForSeen(url));
    return this.#keys.deleteWithPrefix24(((p[0] as number) << 16) | ((p[1] as number) << 8) | (p[2] as number));
  }

  async count(): Promise<number> {
    this.#checkOpen();
    return this.#keys.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#keys.clear();
  }

  #keyOf(url: string): Fp64 {
    return keyInto(canonicalizeForSeen(url), this.#scratch);
  }

  #checkOpen(): void {
    if (this.#closed) throw new UniqFilterClosedError();
  }
}
