import { ThinktankError } from "@thinktank/core";
import { DocumentIndex, TextAnalyzer, type DocumentIndexWeights, type SearchDocument } from "@thinktank/search";
import { defaultSkillSearchWeights, skillPhraseHints, skillSearchFields, skillSynonymGroups, type SkillSearchField } from "./skill-search-weights.js";

export interface EntrySearchOptions {
  /** Results when a search names no limit. @default 10 */
  readonly defaultLimit?: number;
  /** The most results one search returns; larger limits are capped. @default 50 */
  readonly maxLimit?: number;
  /** Only this many characters of a query are read (a whole message may be passed). @default 2000 */
  readonly maxQueryChars?: number;
  /** Ranking knobs; unspecified ones keep `defaultSkillSearchWeights`. */
  readonly weights?: Partial<DocumentIndexWeights>;
}

/** One entry's searchable text, by skill search field. */
export type EntryFields = Readonly<Record<SkillSearchField, string>>;

/**
 * The part skill and command search share: entries indexed on the skill search fields, built
 * on the first search (an index is made for every snapshot, and most are never searched), with
 * query and limit checks. Hits come back as entries, best first.
 */
export class EntryIndex<T> {
  readonly #entries: readonly T[];
  readonly #fieldsOf: (entry: T) => EntryFields;
  readonly #keysOf: (entry: T) => readonly string[];
  /** Lowercased name or identity → the entries it names exactly (built with the index). */
  #byKey: Map<string, number[]> | undefined;
  readonly #weights: DocumentIndexWeights;
  readonly #defaultLimit: number;
  readonly #maxLimit: number;
  readonly #maxQueryChars: number;
  #index: DocumentIndex | undefined;

  constructor(entries: readonly T[], fieldsOf: (entry: T) => EntryFields, keysOf: (entry: T) => readonly string[], options: EntrySearchOptions = {}) {
    this.#entries = entries;
    this.#fieldsOf = fieldsOf;
    this.#keysOf = keysOf;
    this.#weights = { ...defaultSkillSearchWeights, ...options.weights };
    this.#defaultLimit = positiveInteger(options.defaultLimit ?? 10, "defaultLimit");
    this.#maxLimit = positiveInteger(options.maxLimit ?? 50, "maxLimit");
    this.#maxQueryChars = positiveInteger(options.maxQueryChars ?? 2000, "maxQueryChars");
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The number of results a search with this `limit` returns at most (default applied, cap enforced). */
  effectiveLimit(limit: number | undefined): number {
    return Math.min(limit === undefined ? this.#defaultLimit : positiveInteger(limit, "limit"), this.#maxLimit);
  }

  /**
   * The best entries for `query`, best first. A query that is exactly an entry's name or identity
   * (case aside) puts that entry first, scored at least as high as the best match: whoever types
   * a name wants that entry, however common its words are (build-zoom-meeting-sdk-app).
   */
  search(query: string, limit: number | undefined): { entry: T; score: number }[] {
    const count = this.effectiveLimit(limit);
    if (typeof query !== "string" || query.trim() === "") throw new ThinktankError("VALIDATION_FAILED", "query is empty: say what the task is");
    const index = (this.#index ??= this.#build());
    const ranked = index.search(query.slice(0, this.#maxQueryChars), count).map(({ id, score }) => ({ position: Number(id), score }));
    const named = this.#byKey?.get(query.trim().toLowerCase()) ?? [];
    if (named.length > 0) {
      const best = ranked[0]?.score ?? 0;
      const pinned = named.map((position) => ({ position, score: Math.max(best, ranked.find((hit) => hit.position === position)?.score ?? 0) }));
      ranked.splice(0, ranked.length, ...pinned, ...ranked.filter((hit) => !named.includes(hit.position)));
    }
    return ranked.slice(0, count).map(({ position, score }) => ({ entry: this.#entries[position] as T, score: Math.round(score * 1000) / 1000 }));
  }

  #build(): DocumentIndex {
    // Ids are positions, zero-padded so that equal scores keep the entries' own order.
    const width = String(this.#entries.length).length;
    const documents: SearchDocument[] = this.#entries.map((entry, position) => ({ id: String(position).padStart(width, "0"), fields: this.#fieldsOf(entry) }));
    this.#byKey = new Map();
    this.#entries.forEach((entry, position) => {
      for (const key of new Set(this.#keysOf(entry).map((name) => name.toLowerCase()))) this.#byKey?.set(key, [...(this.#byKey.get(key) ?? []), position]);
    });
    return new DocumentIndex(documents, { fields: skillSearchFields, nameField: "name", weights: this.#weights, synonyms: skillSynonymGroups, phraseHints: skillPhraseHints, analyzer: sharedAnalyzer });
  }
}

/** One analyzer for every index: each snapshot's index reads mostly the same text, and its stems are memoised. */
const sharedAnalyzer = new TextAnalyzer();

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ThinktankError("VALIDATION_FAILED", `${name} must be a positive integer; got ${JSON.stringify(value)}`);
  return value;
}
