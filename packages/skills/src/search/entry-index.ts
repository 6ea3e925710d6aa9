import { ThinktankError } from "@thinktank/core";
import { DocumentIndex, type DocumentIndexWeights, type SearchDocument } from "@thinktank/search";
import { defaultSkillSearchWeights, skillSearchFields, skillSynonymGroups, type SkillSearchField } from "./skill-search-weights.js";

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
  readonly #weights: DocumentIndexWeights;
  readonly #defaultLimit: number;
  readonly #maxLimit: number;
  readonly #maxQueryChars: number;
  #index: DocumentIndex | undefined;

  constructor(entries: readonly T[], fieldsOf: (entry: T) => EntryFields, options: EntrySearchOptions = {}) {
    this.#entries = entries;
    this.#fieldsOf = fieldsOf;
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

  search(query: string, limit: number | undefined): { entry: T; score: number }[] {
    const count = this.effectiveLimit(limit);
    if (typeof query !== "string" || query.trim() === "") throw new ThinktankError("VALIDATION_FAILED", "query is empty: say what the task is");
    const index = (this.#index ??= this.#build());
    return index.search(query.slice(0, this.#maxQueryChars), count).map(({ id, score }) => ({ entry: this.#entries[Number(id)] as T, score: Math.round(score * 1000) / 1000 }));
  }

  #build(): DocumentIndex {
    // Ids are positions, zero-padded so that equal scores keep the entries' own order.
    const width = String(this.#entries.length).length;
    const documents: SearchDocument[] = this.#entries.map((entry, position) => ({ id: String(position).padStart(width, "0"), fields: this.#fieldsOf(entry) }));
    return new DocumentIndex(documents, { fields: skillSearchFields, nameField: "name", weights: this.#weights, synonyms: skillSynonymGroups });
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ThinktankError("VALIDATION_FAILED", `${name} must be a positive integer; got ${JSON.stringify(value)}`);
  return value;
}
