/**
 * The topic as the job keeps it: saved in the state backend's `focus`
 * records (record `model`) with the focus settings it was learnt under, so
 * a resume uses it — or learns again when the settings changed — and the
 * terms relevance feedback added, with their shares, so a resume keeps
 * them too. On a shared store (Redis) the record is every node's: before
 * each save, and at most every SHARED_TOPIC_READ_MS while feedback runs, a
 * node takes in the terms other nodes added, so the crawl has one topic.
 * Saves are chained: one at a time, in order.
 */
import type { FocusOptions } from '../config/profile.js';
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';
import { TopicModel } from './topic-model.js';

const MODEL_KEY = 'model';
/** How often a node of a shared crawl reads the topic again (what other nodes' feedback added). */
export const SHARED_TOPIC_READ_MS = 1000;

interface SavedModel {
  settings: { keywords: readonly string[]; training: readonly string[]; weighting: string; feedback?: true };
  model: unknown;
  /** Terms relevance feedback added and their shares (relevance-feedback.ts), in the order added. */
  widenedBy?: Array<[string, number]>;
}

export class KeptTopic {
  #model: TopicModel | null = null;
  readonly #records: RecordStore;
  readonly #shared: SharedRecordStore | null;
  readonly #focus: FocusOptions;
  readonly #notice: (line: string) => void;
  readonly #widenedBy = new Map<string, number>();
  /** The latest save or read, each chained after the one before. */
  #building: Promise<void> | null = null;
  #readAt = 0;
  #changes = 0;

  constructor(records: RecordStore | SharedRecordStore, focus: FocusOptions, notice: (line: string) => void) {
    this.#records = records;
    this.#shared = 'changedSince' in records ? records : null;
    this.#focus = focus;
    this.#notice = notice;
  }

  get model(): TopicModel | null {
    return this.#model;
  }

  /** Whether feedback added `term` already (here or, on a shared store, on another node). */
  widenedWith(term: string): boolean {
    return this.#widenedBy.has(term);
  }

  /** The model saved in the job, when its settings are the profile's. */
  async load(): Promise<boolean> {
    const raw = await this.#records.get(MODEL_KEY);
    const saved = raw === undefined ? null : parseSaved(raw);
    if (saved === null) return false;
    if (JSON.stringify(saved.settings) !== JSON.stringify(this.#settings())) {
      this.#notice('archiver: focus: the focus settings changed since the topic was learnt: learning it again');
      return false;
    }
    this.#model = TopicModel.fromJSON(saved.model);
    for (const [t, share] of saved.widenedBy ?? []) this.#widenedBy.set(t, share);
    return this.#model !== null;
  }

  /** The topic just learnt, saved. */
  async learnt(model: TopicModel): Promise<void> {
    this.#model = model;
    this.#building = this.#save();
    await this.#building;
  }

  /** Feedback's terms (term, share) added to the topic, and saved (not awaited: close() waits for it). */
  widen(terms: ReadonlyArray<readonly [string, number]>): void {
    this.#widenWith(terms);
    this.#building = this.#save();
  }

  /** A shared crawl with feedback reads the topic again at most every SHARED_TOPIC_READ_MS (called between claims). */
  readShared(now: number): void {
    if (this.#shared === null || !this.#focus.feedback || now - this.#readAt < SHARED_TOPIC_READ_MS) return;
    this.#readAt = now;
    this.#building = (this.#building ?? Promise.resolve())
      .then(() => this.#takeIn())
      .catch((e: unknown) => this.#notice(`archiver: focus: the shared topic could not be read: ${String(e)}`));
  }

  /** Waits for the saves under way. */
  async settledSaves(): Promise<void> {
    await this.#building;
  }

  #widenWith(terms: ReadonlyArray<readonly [string, number]>): void {
    this.#model = this.#model!.widen(terms);
    for (const [t, share] of terms) this.#widenedBy.set(t, share);
  }

  async #save(): Promise<void> {
    await this.#building;
    if (this.#shared !== null) await this.#takeIn();
    const widenedBy = [...this.#widenedBy];
    const saved: SavedModel = { settings: this.#settings(), model: this.#model!.toJSON(), ...(widenedBy.length > 0 ? { widenedBy } : {}) };
    await this.#records.put(MODEL_KEY, Buffer.from(JSON.stringify(saved)));
  }

  /** The terms other nodes' feedback added, taken in. */
  async #takeIn(): Promise<void> {
    const { entries, cursor } = await this.#shared!.changedSince(this.#changes);
    this.#changes = cursor;
    const raw = entries.find(([k]) => k === MODEL_KEY)?.[1];
    const saved = raw === undefined ? null : parseSaved(raw);
    if (saved === null || this.#model === null || JSON.stringify(saved.settings) !== JSON.stringify(this.#settings())) return;
    const theirs = (saved.widenedBy ?? []).filter(([t]) => !this.#widenedBy.has(t));
    if (theirs.length > 0) this.#widenWith(theirs);
  }

  #settings(): SavedModel['settings'] {
    const s: SavedModel['settings'] = { keywords: this.#focus.keywords, training: this.#focus.training, weighting: this.#focus.weighting };
    return this.#focus.feedback ? { ...s, feedback: true } : s;
  }
}

function parseSaved(raw: Buffer): SavedModel | null {
  try {
    const saved = JSON.parse(raw.toString('utf8')) as SavedModel;
    return typeof saved === 'object' && saved !== null ? saved : null;
  } catch {
    return null;
  }
}
