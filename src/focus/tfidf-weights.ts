/**
 * Smoothed tf-idf, the standard form (as scikit-learn's default):
 * idf(t) = ln((1 + N) / (1 + df(t))) + 1 over the N training documents, a
 * document's vector tf × idf scaled to unit length, and the topic the mean
 * of its documents' vectors (their centroid, as Rocchio's classifier
 * takes it). A page is weighed with the same idf; a term no training
 * document holds has df 0.
 */
import { norm, type TermVector } from './term-vector.js';

export function smoothIdf(nDoc: number, df: number): number {
  return Math.log((1 + nDoc) / (1 + df)) + 1;
}

/** How many documents hold each term. */
export function documentFrequencies(docs: readonly TermVector[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) for (const t of doc.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return df;
}

/** tf × idf of one text's counts. */
export function tfidfVector(counts: TermVector, nDoc: number, df: ReadonlyMap<string, number>): TermVector {
  const v: TermVector = new Map();
  for (const [t, tf] of counts) v.set(t, tf * smoothIdf(nDoc, df.get(t) ?? 0));
  return v;
}

/** The centroid of the documents' unit-length tf-idf vectors (empty for no documents). */
export function tfidfCentroid(docs: readonly TermVector[], df: ReadonlyMap<string, number>): TermVector {
  const centroid: TermVector = new Map();
  for (const doc of docs) {
    const v = tfidfVector(doc, docs.length, df);
    const length = norm(v);
    if (length === 0) continue;
    for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w / length / docs.length);
  }
  return centroid;
}
