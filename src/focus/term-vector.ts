/**
 * Sparse term vectors (term → weight) and the cosine similarity between
 * them: relevance is the cosine of a page's vector and the topic's.
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

/**
 * cos(a, b) = a·b / (|a| |b|), 0 when either is empty. `bNorm` may be given
 * when b is reused (the topic). Iterates `a`, so pass the smaller one first.
 */
export function cosine(a: TermVector, b: TermVector, bNorm = norm(b)): number {
  if (a.size === 0 || bNorm === 0) return 0;
  let dot = 0;
  let aSum = 0;
  for (const [t, w] of a) {
    aSum += w * w;
    const other = b.get(t);
    if (other !== undefined) dot += w * other;
  }
  if (dot === 0 || aSum === 0) return 0;
  // Rounding can carry an identical pair a hair past 1.
  return Math.min(1, dot / (Math.sqrt(aSum) * bNorm));
}
