/**
 * Sparse term vectors (term → weight): a text's term counts, a topic's
 * weights. Relevance is the cosine of two of them (TopicModel.relevance).
 */

export type TermVector = Map<string, number>;

/** How often each term occurs. */
export function countTerms(terms: Iterable<string>, into: TermVector = new Map()): TermVector {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + 1);
  return into;
}

/** Euclidean length. */
export function norm(v: TermVector): number {
  let sum = 0;
  for (const w of v.values()) sum += w * w;
  return Math.sqrt(sum);
}
