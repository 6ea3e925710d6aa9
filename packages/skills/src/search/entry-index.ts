import { ThinktankError } from "@thinktank/core";
import { DocumentIndex, TextAnalyzer, type DocumentIndexWeights, type SearchDocument } from "@thinktank/search";
import { skillStopWords } from "./skill-stop-words.js";
import { relatedWordGroups } from "./related-words.js";
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
  /**
   * A hit whose description shares at least this share of its words with a better hit's (word-set
   * Jaccard) is a near-copy (a fork, a renamed mirror): it is moved after the hits that are not, so
   * a few results show different skills. 1 turns this off. @default 0.6 (tuned on the dev split)
   */
  readonly nearCopySimilarity?: number;
  /**
   * A hit whose description quotes a phrase of two words or more that the query says word for
   * word ('Trigger with "how should we test"', 'Use when asked "where does this number come
   * from"') scores this much more (0.5: half as much again). 0 turns this off. @default 0.5
   */
  readonly triggerBonus?: number;
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
  readonly #nearCopySimilarity: number;
  readonly #triggerBonus: number;
  /** Each entry's quoted trigger phrases, normalised (built with the index). */
  #triggers: { position: number; phrase: string }[] = [];
  /** Each entry's description words as sorted ids, for near-copy checks (made on demand). */
  readonly #words = new Map<number, Int32Array>();
  readonly #wordIds = new Map<string, number>();
  #index: DocumentIndex | undefined;

  constructor(entries: readonly T[], fieldsOf: (entry: T) => EntryFields, keysOf: (entry: T) => readonly string[], options: EntrySearchOptions = {}) {
    this.#entries = entries;
    this.#fieldsOf = fieldsOf;
    this.#keysOf = keysOf;
    this.#weights = { ...defaultSkillSearchWeights, ...options.weights };
    this.#defaultLimit = positiveInteger(options.defaultLimit ?? 10, "defaultLimit");
    this.#maxLimit = positiveInteger(options.maxLimit ?? 50, "maxLimit");
    this.#maxQueryChars = positiveInteger(options.maxQueryChars ?? 2000, "maxQueryChars");
    this.#nearCopySimilarity = options.nearCopySimilarity ?? 0.6;
    this.#triggerBonus = options.triggerBonus ?? 0.5;
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
    // Deeper than asked, so that near-copies moved down leave room for other skills.
    const depth = this.#nearCopySimilarity < 1 ? count * 3 : count;
    const said = this.#triggerBonus > 0 ? this.#triggered(query.slice(0, this.#maxQueryChars)) : new Set<number>();
    const found = index.search(query.slice(0, this.#maxQueryChars), said.size > 0 ? Math.max(depth, 50) : depth).map(({ id, score }) => ({ position: Number(id), score: said.has(Number(id)) ? score * (1 + this.#triggerBonus) : score }));
    if (said.size > 0) found.sort((a, b) => b.score - a.score || a.position - b.position);
    const ranked = this.#spread(found.slice(0, depth), count);
    const named = this.#byKey?.get(query.trim().toLowerCase()) ?? [];
    if (named.length > 0) {
      const best = ranked[0]?.score ?? 0;
      const pinned = named.map((position) => ({ position, score: Math.max(best, ranked.find((hit) => hit.position === position)?.score ?? 0) }));
      ranked.splice(0, ranked.length, ...pinned, ...ranked.filter((hit) => !named.includes(hit.position)));
    }
    return ranked.slice(0, count).map(({ position, score }) => ({ entry: this.#entries[position] as T, score: Math.round(score * 1000) / 1000 }));
  }

  /** The entries with a quoted trigger phrase that the query says word for word. */
  #triggered(query: string): Set<number> {
    const said = new Set<number>();
    if (this.#triggers.length === 0) return said;
    const text = ` ${phraseWords(query)} `;
    for (const { position, phrase } of this.#triggers) if (text.includes(` ${phrase} `)) said.add(position);
    return said;
  }

  /**
   * Greedy re-ranking: each next hit is the best by score, a near-copy of a hit already taken
   * counting at `nearCopyWeight` of its score. A copy thus gives way to other skills that match
   * almost as well, not to every weaker one (an original outscored by its own copy stays close).
   * `ranked` comes best first; the first `count` hits are taken. Lazy: a hit is compared with the
   * hits taken since it was last looked at, and only while it could still be the next best (a hit
   * scoring no more than the best so far cannot be), so a search compares a few pairs, not d².
   */
  #spread(ranked: readonly { position: number; score: number }[], count: number): { position: number; score: number }[] {
    if (this.#nearCopySimilarity >= 1) return ranked.slice(0, count);
    const pending = ranked.map((hit) => ({ ...hit, copy: false, checked: 0 }));
    const taken: { position: number; score: number }[] = [];
    while (pending.length > 0 && taken.length < count) {
      let best = -1;
      let bestValue = Number.NEGATIVE_INFINITY;
      for (let index = 0; index < pending.length; index++) {
        const hit = pending[index] as { position: number; score: number; copy: boolean; checked: number };
        // Scores only fall from here on, and a hit weighs at most its score: none can do better (ties keep the first).
        if (hit.score <= bestValue) break;
        for (; !hit.copy && hit.checked < taken.length; hit.checked++) hit.copy = this.#similarity((taken[hit.checked] as { position: number }).position, hit.position) >= this.#nearCopySimilarity;
        const value = hit.copy ? hit.score * nearCopyWeight : hit.score;
        if (value > bestValue) {
          best = index;
          bestValue = value;
        }
      }
      const [next] = pending.splice(best, 1);
      if (next) taken.push({ position: next.position, score: next.score });
    }
    return taken;
  }

  /** Word-set Jaccard of two entries' descriptions (a merge of sorted ids: searches run it up to d² times). */
  #similarity(a: number, b: number): number {
    const [left, right] = [this.#wordsOf(a), this.#wordsOf(b)];
    const [small, large] = left.length < right.length ? [left.length, right.length] : [right.length, left.length];
    if (small === 0 || small < large * this.#nearCopySimilarity) return 0;
    let shared = 0;
    for (let i = 0, j = 0; i < left.length && j < right.length; ) {
      const [x, y] = [left[i] as number, right[j] as number];
      if (x === y) {
        shared++;
        i++;
        j++;
      } else if (x < y) i++;
      else j++;
    }
    return shared / (left.length + right.length - shared);
  }

  #wordsOf(position: number): Int32Array {
    let words = this.#words.get(position);
    if (!words) {
      const unique = new Set(this.#fieldsOf(this.#entries[position] as T).description.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
      const ids = [...unique].map((word) => this.#wordIds.get(word) ?? (this.#wordIds.set(word, this.#wordIds.size), this.#wordIds.size - 1));
      words = Int32Array.from(ids).sort();
      this.#words.set(position, words);
    }
    return words;
  }

  #build(): DocumentIndex {
    // Ids are positions, zero-padded so that equal scores keep the entries' own order.
    const width = String(this.#entries.length).length;
    const documents: SearchDocument[] = this.#entries.map((entry, position) => ({ id: String(position).padStart(width, "0"), fields: this.#fieldsOf(entry) }));
    this.#triggers = this.#entries.flatMap((entry, position) => triggerPhrases(this.#fieldsOf(entry).description).map((phrase) => ({ position, phrase })));
    this.#byKey = new Map();
    this.#entries.forEach((entry, position) => {
      for (const key of new Set(this.#keysOf(entry).map((name) => name.toLowerCase()))) this.#byKey?.set(key, [...(this.#byKey.get(key) ?? []), position]);
    });
    return new DocumentIndex(documents, { fields: skillSearchFields, nameField: "name", weights: this.#weights, synonyms: skillSynonymGroups, related: relatedWordGroups, phraseHints: skillPhraseHints, analyzer: sharedAnalyzer });
  }
}

/** Lowercase words joined by single spaces (apostrophes kept inside words: "what's"). */
function phraseWords(text: string): string {
  return (text.toLowerCase().replace(/[’‘]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []).join(" ");
}

/**
 * The phrases a description quotes as what users say: each quoted span ("...", “...”) cut at
 * placeholders ([company], {name}, <x>, ...), keeping pieces of two words or more (single words
 * already count as words). At most 40 per entry.
 */
function triggerPhrases(description: string): string[] {
  const phrases: string[] = [];
  for (const match of description.matchAll(/"([^"\n]{4,120})"|“([^”\n]{4,120})”/g)) {
    const quoted = match[1] ?? match[2] ?? "";
    for (const piece of quoted.split(/\[[^\]]*\]|\{[^}]*\}|<[^>]*>|\.\.\.|…/)) {
      const words = phraseWords(piece);
      if (words.split(" ").length >= 2 && words.length >= 6) phrases.push(words);
    }
    if (phrases.length >= 40) break;
  }
  return phrases;
}

/** What a near-copy's score counts for once the hit it copies is taken (tuned on the dev split). */
const nearCopyWeight = 0.3;

/**
 * The analyzer of every skill index. Each snapshot's index reads mostly the same text as the last
 * one: stems are memoised by the engine, and here the terms of long texts too (SKILL.md bodies,
 * most of what an index reads), so that the index after a change re-reads only what changed.
 * Bounded: the memo is cleared when full. Callers only read the arrays it returns.
 */
class SkillTextAnalyzer extends TextAnalyzer {
  readonly #texts = new Map<string, string[]>();

  override terms(text: string): string[] {
    if (text.length < 1000) return super.terms(text);
    let terms = this.#texts.get(text);
    if (terms === undefined) {
      terms = super.terms(text);
      if (this.#texts.size >= 5000) this.#texts.clear();
      this.#texts.set(text, terms);
    }
    return terms;
  }
}

const sharedAnalyzer = new SkillTextAnalyzer({ stopWords: skillStopWords });

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ThinktankError("VALIDATION_FAILED", `${name} must be a positive integer; got ${JSON.stringify(value)}`);
  return value;
}
