/**
 * Exclusions an operator adds to a running crawl (the console's "exclude",
 * Heritrix's "deleted by operator"). The scope refuses new links that match
 * them; URIs queued before the exclusion are dropped here as they come up,
 * logged -6000 `deletedByOperator`, instead of being fetched. Kept in the
 * job records, so a resumed crawl restores them (crawl-parts.ts).
 */
import { ArchiverError } from '../core/errors.js';

/** Heritrix's status for a URI the operator removed from the frontier. */
export const DELETED_BY_OPERATOR_STATUS = -6000;
export const DELETED_BY_OPERATOR = 'deletedByOperator';

/** An exclusion that is not a usable regex. */
export class ExclusionError extends ArchiverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_BAD_EXCLUSION', message, options);
  }
}

/** `source` compiled, or ExclusionError: empty (it would drop everything) or not a JavaScript regex. */
export function compileExclusion(source: string): RegExp {
  if (source === '') throw new ExclusionError('an exclusion must not be empty (it would match every URL)');
  try {
    return new RegExp(source);
  } catch (err) {
    throw new ExclusionError(`not a regular expression: ${source}`, { cause: err });
  }
}

export class OperatorExclusions {
  readonly #regexes: RegExp[] = [];
  readonly #sources = new Set<string>();

  /** Add one; false when it was there already. */
  add(source: string): boolean {
    if (this.#sources.has(source)) return false;
    this.#regexes.push(compileExclusion(source));
    this.#sources.add(source);
    return true;
  }

  has(source: string): boolean {
    return this.#sources.has(source);
  }

  matches(url: string): boolean {
    for (const re of this.#regexes) if (re.test(url)) return true;
    return false;
  }

  get size(): number {
    return this.#regexes.length;
  }
}
