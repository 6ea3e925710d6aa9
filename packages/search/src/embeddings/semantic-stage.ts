import { cosineSimilarity, type Embedder } from "./embedder.js";

export interface SemanticStageOptions {
  readonly embedder: Embedder;
  /** How many candidates each side contributes: the keyword top and the nearest by meaning. @default 30 */
  readonly candidates?: number;
  /** Share of the final score that comes from meaning; the rest comes from the keyword score. @default 0.5 */
  readonly weight?: number;
  /** Document vectors kept in memory between searches. @default 20000 */
  readonly cacheSize?: number;
}

/** A document by key with a score (keyword or blended). */
export interface KeyedScore {
  readonly key: string;
  readonly score: number;
}

/** A document the stage may embed: its key and the text that stands for it. */
export interface EmbeddableDocument {
  readonly key: string;
  readonly text: string;
}

/**
 * The optional semantic stage of a search. Candidates are the keyword top and the documents
 * nearest to the query by embedding (so "how long is the drive" can find a distance tool that
 * shares no word with it); each candidate's score blends its keyword score and its similarity.
 * Document vectors are embedded once and cached (a changed text is embedded again). It rejects
 * when the embedder fails; the caller keeps its keyword order then.
 */
export class SemanticStage {
  readonly #embedder: Embedder;
  readonly #candidates: number;
  readonly #weight: number;
  readonly #cacheSize: number;
  readonly #vectors = new Map<string, number[]>();

  constructor(options: SemanticStageOptions) {
    this.#embedder = options.embedder;
    this.#candidates = options.candidates ?? 30;
    this.#weight = Math.min(1, Math.max(0, options.weight ?? 0.5));
    this.#cacheSize = options.cacheSize ?? 20_000;
  }

  /** How many keyword results the stage wants to see (and how many neighbours it adds). */
  get candidates(): number {
    return this.#candidates;
  }

  /**
   * The best `limit` of the keyword top (best first, with scores) and the `candidates` documents
   * nearest the query, by blended score; equal scores go by key.
   */
  async rank(query: string, keyword: readonly KeyedScore[], documents: readonly EmbeddableDocument[], limit: number): Promise<KeyedScore[]> {
    const cacheKey = (document: EmbeddableDocument) => `${document.key}\u0000${document.text}`;
    const missing = documents.filter((document) => !this.#vectors.has(cacheKey(document)));
    const vectors = await this.#embedder.embed([query, ...missing.map((document) => document.text)]);
    missing.forEach((document, i) => this.#remember(cacheKey(document), vectors[i + 1] ?? []));
    const queryVector = vectors[0] ?? [];
    const similarityOf = (document: EmbeddableDocument | undefined) => (document ? cosineSimilarity(queryVector, this.#vectors.get(cacheKey(document)) ?? []) : 0);

    const candidates = new Map<string, { keyword: number; similarity: number }>();
    const nearest = documents
      .map((document) => ({ document, similarity: similarityOf(document) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, this.#candidates);
    for (const { document, similarity } of nearest) candidates.set(document.key, { keyword: 0, similarity });
    const byKey = new Map(documents.map((document) => [document.key, document]));
    for (const result of keyword) {
      const candidate = candidates.get(result.key) ?? { keyword: 0, similarity: similarityOf(byKey.get(result.key)) };
      candidate.keyword = result.score;
      candidates.set(result.key, candidate);
    }

    const topKeyword = keyword[0]?.score || 1;
    const topSimilarity = Math.max(0, ...[...candidates.values()].map((c) => c.similarity)) || 1;
    return [...candidates]
      .map(([key, candidate]) => ({ key, score: (1 - this.#weight) * (candidate.keyword / topKeyword) + this.#weight * (candidate.similarity / topSimilarity) }))
      .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit);
  }

  #remember(key: string, vector: number[]): void {
    if (this.#vectors.size >= this.#cacheSize) {
      const oldest = this.#vectors.keys().next().value;
      if (oldest !== undefined) this.#vectors.delete(oldest);
    }
    this.#vectors.set(key, vector);
  }
}
