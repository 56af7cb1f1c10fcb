/**
 * The topic a focused crawl keeps to: a term vector learnt from keywords
 * and/or training documents, weighed as the profile chose (`seed`: the seed
 * document's formula, seed-weights.ts; `tfidf`: smoothed tf-idf,
 * tfidf-weights.ts), and the relevance of a text to it — the cosine of the
 * two vectors.
 *
 * A document's terms are its title's (counted twice: a title names the
 * topic) and its visible text's (headings included), cut by terms.ts, with
 * the stop words of the languages present dropped (stop-words.ts). Keywords
 * weigh as much as the topic's heaviest term, or 1 when they are the whole
 * topic: a topic given by keywords alone, and a `seed` topic with at most
 * two training documents (where its formula is undefined) — then without
 * keywords every term of those documents weighs 1. Either fallback is told
 * once (`notice`).
 *
 * Page vectors: `tfidf` weighs a page's counts with the training idf;
 * `seed` takes the counts as they are (the seed spider scores a page's
 * frequencies against its weights W).
 *
 * A few words (an anchor, a URL) can only share a few terms with a topic of
 * hundreds, so their cosine is small even when every word is on the topic.
 * `shortTextScore` puts it on the scale of a page's relevance: the cosine
 * divided by that of a typical on-topic short text — the median cosine of
 * the training documents' titles, or, without titles, of the topic's
 * heaviest term alone — capped at 1. When the profile names keywords, a
 * short text that holds one scores at least its keyword evidence
 * (mention-score.ts: one mention 0.86), as a link that names the topic is
 * nearly always on it.
 *
 * A page's relevance: the cosine of the two vectors; when the profile
 * names keywords, the larger of that and the keywords' mention score
 * (mention-score.ts), which puts a page that keeps to a keyword topic near
 * 1 where its cosine would sit at 0.05–0.3. What its links inherit, its
 * focus: the cosine, or the larger of it and the keywords' density, both
 * without the words of the page's link anchors (mention-score.ts).
 *
 * The model is plain data (toJSON / fromJSON) so a job keeps it across a
 * resume; it holds the MAX_TOPIC_TERMS heaviest terms and the document
 * frequencies of at most MAX_DF_TERMS terms, whatever the training size.
 */
import type { FocusWeightingName } from '../config/profile.js';
import { mentionScores, shortMentionScore } from './mention-score.js';
import { seedWeights } from './seed-weights.js';
import { isStopWord, languagesOf, withoutStopWords, type Language, STOP_WORD_LANGUAGES } from './stop-words.js';
import { countTerms, norm, type TermVector } from './term-vector.js';
import { termsOf } from './terms.js';
import { documentFrequencies, smoothIdf, tfidfCentroid } from './tfidf-weights.js';
import { documentTerms } from './page-terms.js';

/** Terms kept in the topic, the heaviest first. */
export const MAX_TOPIC_TERMS = 5000;
/** Document frequencies kept (tf-idf), the most frequent first. */
export const MAX_DF_TERMS = 100_000;

/** A page as the model reads it; `terms` when its words were cut already (page-terms.ts: title twice, then text). */
export interface FocusDocument {
  title: string | null;
  text: string;
  terms?: readonly string[];
}

export interface TopicModelData {
  version: 1;
  weighting: FocusWeightingName;
  /** Training documents read. */
  nDoc: number;
  languages: Language[];
  weights: Array<[string, number]>;
  df: Array<[string, number]>;
  /** The cosine of a typical on-topic short text (see shortTextScore). */
  shortTextRef: number;
  /** The keywords' terms (absent in models saved before they counted: none). */
  keywords?: string[];
}

/** A text made ready for scoring: its terms without stop words, and the languages they were judged in. */
export interface PreparedText {
  counts: TermVector;
  languages: ReadonlySet<Language>;
}

/** A page as judged: its relevance (logged, against the threshold) and its focus (what its links inherit), both in [0, 1]. */
export interface Judgement {
  relevance: number;
  focus: number;
}

export interface TopicBuild {
  weighting: FocusWeightingName;
  keywords: readonly string[];
  docs: readonly FocusDocument[];
  /** Told, in one line, when the weights fall back to 1 each. */
  notice?: (line: string) => void;
}

export class TopicModel {
  readonly weighting: FocusWeightingName;
  readonly nDoc: number;
  readonly languages: ReadonlySet<Language>;
  readonly #topic: TermVector;
  readonly #topicNorm: number;
  readonly #df: ReadonlyMap<string, number>;
  /** tf-idf: each known term's idf, and that of a term no training document holds. */
  readonly #idf = new Map<string, number>();
  readonly #unknownIdf: number;
  readonly #keywords: ReadonlySet<string>;
  #shortTextRef = 1;

  private constructor(
    weighting: FocusWeightingName, nDoc: number, languages: ReadonlySet<Language>, topic: TermVector, df: ReadonlyMap<string, number>, keywords: ReadonlySet<string>,
  ) {
    this.weighting = weighting;
    this.#keywords = keywords;
    this.nDoc = nDoc;
    this.languages = languages;
    this.#topic = topic;
    this.#topicNorm = norm(topic);
    this.#df = df;
    for (const [t, n] of df) this.#idf.set(t, smoothIdf(nDoc, n));
    this.#unknownIdf = smoothIdf(nDoc, 0);
  }

  static build(b: TopicBuild): TopicModel {
    const prepared = b.docs.map((d) => prepareDocument(d, new Set()));
    const languages = new Set<Language>();
    for (const p of prepared) for (const l of p.languages) languages.add(l);
    const keywordTerms = new Set<string>();
    for (const k of b.keywords) for (const t of termsOf(k)) keywordTerms.add(t);
    // Keywords are taken as given, stop words or not: the operator named them.
    for (const l of languagesOf([...keywordTerms])) languages.add(l);
    const docs = prepared.map((p) => p.counts);
    const df = documentFrequencies(docs);
    let topic: TermVector;
    if (b.weighting === 'tfidf') {
      topic = tfidfCentroid(docs, df);
    } else {
      const weights = seedWeights(docs);
      if (weights !== null) topic = weights;
      else if (keywordTerms.size > 0 || docs.length === 0) topic = new Map();
      else {
        topic = new Map();
        for (const doc of docs) for (const t of doc.keys()) topic.set(t, 1);
      }
      if (weights === null && docs.length > 0) {
        b.notice?.(
          `archiver: focus: the seed weighting needs at least 3 training documents (its formula is undefined for nDoc ≤ 2; ${docs.length} read): ` +
            (keywordTerms.size > 0 ? 'each keyword weighs 1, the training pages are archived but not weighed' : 'each term of the training pages weighs 1'),
        );
      }
    }
    if (keywordTerms.size > 0) {
      if (topic.size === 0) b.notice?.(`archiver: focus: the topic is given by keywords alone: each of its ${keywordTerms.size} term(s) weighs 1`);
      const top = topic.size === 0 ? 1 : maxValue(topic);
      for (const t of keywordTerms) topic.set(t, Math.max(topic.get(t) ?? 0, top));
    }
    const model = new TopicModel(b.weighting, docs.length, languages, heaviest(topic, MAX_TOPIC_TERMS), heaviest(df, MAX_DF_TERMS), keywordTerms);
    const titles = b.docs.flatMap((d, i) => {
      const terms = d.title === null ? [] : termsOf(d.title);
      return terms.length > 0 ? [model.cosine(model.prepareTerms(terms, prepared[i]!.languages))] : [];
    });
    const heaviestAlone = model.#topicNorm === 0 ? 1 : maxValue(model.#topic) / model.#topicNorm;
    model.#shortTextRef = positive(median(titles.filter((t) => t > 0))) ?? positive(heaviestAlone) ?? 1;
    return model;
  }

  /** A model saved by toJSON(), or null when `data` is not one. */
  static fromJSON(data: unknown): TopicModel | null {
    if (typeof data !== 'object' || data === null) return null;
    const d = data as Partial<TopicModelData>;
    if (d.version !== 1 || (d.weighting !== 'seed' && d.weighting !== 'tfidf') || typeof d.nDoc !== 'number') return null;
    if (!Array.isArray(d.weights) || !Array.isArray(d.df) || !Array.isArray(d.languages)) return null;
    const languages = new Set(d.languages.filter((l): l is Language => STOP_WORD_LANGUAGES.includes(l)));
    const keywords = new Set(Array.isArray(d.keywords) ? d.keywords.filter((k): k is string => typeof k === 'string') : []);
    const model = new TopicModel(d.weighting, d.nDoc, languages, new Map(d.weights), new Map(d.df), keywords);
    model.#shortTextRef = positive(d.shortTextRef) ?? 1;
    return model;
  }

  toJSON(): TopicModelData {
    return {
      version: 1,
      weighting: this.weighting,
      nDoc: this.nDoc,
      languages: [...this.languages],
      weights: [...this.#topic],
      df: [...this.#df],
      shortTextRef: this.#shortTextRef,
      keywords: [...this.#keywords],
    };
  }

  /**
   * The topic widened by relevance feedback (relevance-feedback.ts): each
   * term at `share` × the topic's heaviest weight unless it weighs more
   * already. A short text's reference cosine shrinks as the topic's length
   * grows, so that a short text scores as before.
   */
  widen(terms: ReadonlyArray<readonly [string, number]>): TopicModel {
    const data = this.toJSON();
    const weights = new Map(data.weights);
    const top = weights.size === 0 ? 1 : maxValue(weights);
    for (const [t, share] of terms) weights.set(t, Math.max(weights.get(t) ?? 0, share * top));
    const wider = norm(weights);
    const shortTextRef = wider === 0 ? data.shortTextRef : (data.shortTextRef * this.#topicNorm) / wider;
    return TopicModel.fromJSON({ ...data, weights: [...weights], shortTextRef })!;
  }

  /** Terms in the topic. */
  get size(): number {
    return this.#topic.size;
  }

  /** The `n` heaviest terms of the topic, heaviest first. */
  topTerms(n: number): Array<[string, number]> {
    return [...this.#topic].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
  }

  /** A page's title and text, ready for scoring (its own languages and the topic's). */
  preparePage(doc: FocusDocument): PreparedText {
    return prepareDocument(doc, this.languages);
  }

  /** A short text (anchor, words around a link, a URL's words), judged in `languages` (its page's). */
  prepareTerms(terms: readonly string[], languages: ReadonlySet<Language>): PreparedText {
    const counts: TermVector = new Map();
    for (const t of terms) if (!isStopWord(t, languages)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return { counts, languages };
  }

  /** A short text's relevance on the scale of a page's: see the file's comment. In [0, 1]. */
  shortTextScore(text: PreparedText): number {
    const scaled = Math.min(1, this.cosine(text) / this.#shortTextRef);
    return this.#keywords.size === 0 ? scaled : Math.max(scaled, shortMentionScore(text.counts, this.#keywords));
  }

  /** A page's relevance in [0, 1]: see the file's comment. */
  relevance(text: PreparedText): number {
    return this.judge(text).relevance;
  }

  /**
   * A page's relevance, and how closely it keeps to the topic (what its
   * links inherit): see the file's comment. `linked`: the counts of its
   * anchors' terms (linkedTerms), left out of its focus — a table of
   * contents that names the topic in a few entries is no page about it.
   */
  judge(text: PreparedText, linked?: TermVector): Judgement {
    const [cosine, proseCosine] = this.#cosines(text, linked);
    if (this.#keywords.size === 0) return { relevance: cosine, focus: proseCosine };
    const m = mentionScores(text.counts, this.#keywords, linked);
    return { relevance: Math.max(cosine, m.score), focus: Math.max(proseCosine, m.density) };
  }

  /**
   * The counts of the terms in a page's hyperlink anchors (`anchors`: each
   * link's terms as page-terms.ts joined them), stop words left out as for
   * the page. One pass over words the page thread cut already.
   */
  linkedTerms(anchors: Iterable<string>, languages: ReadonlySet<Language>): TermVector {
    const counts: TermVector = new Map();
    for (const joined of anchors) {
      if (joined === '') continue;
      for (const t of joined.split(' ')) if (!isStopWord(t, languages)) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return counts;
  }

  /** Cosine similarity of the text's vector, weighed as the topic is, to the topic: in [0, 1]. One pass, no vector built. */
  cosine(text: PreparedText): number {
    return this.#cosines(text)[0];
  }

  /** The cosine of the text, and of the text without the terms of `linked` (its anchors), in the same pass. */
  #cosines(text: PreparedText, linked?: TermVector): [number, number] {
    if (this.#topicNorm === 0 || text.counts.size === 0) return [0, 0];
    const idf = this.weighting === 'tfidf' ? this.#idf : null;
    const unknownIdf = this.#unknownIdf;
    let dot = 0;
    let sum = 0;
    let proseDot = 0;
    for (const [t, tf] of text.counts) {
      const weight = idf === null ? 1 : (idf.get(t) ?? unknownIdf);
      const w = tf * weight;
      sum += w * w;
      const prose = linked === undefined ? w : Math.max(0, tf - (linked.get(t) ?? 0)) * weight;
      const topic = this.#topic.get(t);
      if (topic !== undefined) {
        dot += w * topic;
        proseDot += prose * topic;
      }
    }
    // Rounding can carry an identical pair a hair past 1.
    const cos = (d: number, s: number): number => (d === 0 ? 0 : Math.min(1, d / (Math.sqrt(s) * this.#topicNorm)));
    // The prose's projection on the topic, over the whole page's length (as the density is a share of all its terms).
    return [cos(dot, sum), cos(proseDot, sum)];
  }
}

function prepareDocument(doc: FocusDocument, extra: ReadonlySet<Language>): PreparedText {
  const terms = doc.terms ?? documentTerms(doc.title, doc.text);
  const languages = languagesOf(terms);
  for (const l of extra) languages.add(l);
  return { counts: countTerms(withoutStopWords(terms, languages)), languages };
}

/** The largest value (a loop: a spread of a large topic would overflow the call stack). */
function maxValue(v: ReadonlyMap<string, number>): number {
  let max = -Infinity;
  for (const w of v.values()) if (w > max) max = w;
  return max;
}

function median(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

function positive(x: number | undefined): number | undefined {
  return x !== undefined && Number.isFinite(x) && x > 0 ? x : undefined;
}

/** The `max` entries of largest value (ties by term, so that a model is the same for the same input). */
function heaviest(v: ReadonlyMap<string, number>, max: number): Map<string, number> {
  const entries = [...v].filter(([, w]) => w > 0);
  if (entries.length <= max) return new Map(entries);
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(entries.slice(0, max));
}
