/**
 * The seed document's term weights (its focused spider):
 *
 *   W(i) = Avg(TF_i) × 1 / ( ln(nDoc / n_i) + 1 / ln(nDoc − 1) )
 *
 * Avg(TF_i) is term i's count averaged over the nDoc training documents
 * (documents without it count as 0), n_i the number of documents holding
 * it; ln is the natural logarithm. Unlike an idf, the factor grows with
 * n_i: a term found in every training document is the topic's most
 * characteristic, and weighs Avg(TF_i) × ln(nDoc − 1) (its ln(nDoc / n_i)
 * is 0). The formula is undefined for nDoc ≤ 2 (ln(1) = 0 divides, ln(0)
 * does not exist): then it gives null and the caller falls back to
 * weighing each topic term 1 (topic-model.ts).
 */
import type { TermVector } from './term-vector.js';

/** The factor 1 / (ln(nDoc / n) + 1 / ln(nDoc − 1)) of a term held by `n` of `nDoc` documents (nDoc ≥ 3, 1 ≤ n ≤ nDoc). */
export function seedFactor(nDoc: number, n: number): number {
  return 1 / (Math.log(nDoc / n) + 1 / Math.log(nDoc - 1));
}

/** W(i) for every term of the documents (each a term → count vector), or null when nDoc ≤ 2. */
export function seedWeights(docs: readonly TermVector[]): TermVector | null {
  const nDoc = docs.length;
  if (nDoc <= 2) return null;
  const total = new Map<string, number>();
  const held = new Map<string, number>();
  for (const doc of docs) {
    for (const [t, tf] of doc) {
      if (tf <= 0) continue;
      total.set(t, (total.get(t) ?? 0) + tf);
      held.set(t, (held.get(t) ?? 0) + 1);
    }
  }
  const weights: TermVector = new Map();
  for (const [t, sum] of total) weights.set(t, (sum / nDoc) * seedFactor(nDoc, held.get(t)!));
  return weights;
}
