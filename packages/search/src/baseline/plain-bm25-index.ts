import { inverseDocumentFrequency } from "../ranking/search-stats.js";

/** One document of the baseline: an id and all its text. */
export interface PlainDocument {
  readonly id: string;
  readonly text: string;
}

/**
 * The baseline every quality figure is measured against: textbook BM25 (k1 1.2, b 0.75) over one
 * text per document, lowercased and split on anything that is not a letter or digit. No
 * identifier splitting, stemming, stop words, synonyms or field weights.
 */
export class PlainBm25Index {
  readonly #documents: { id: string; length: number; frequencies: Map<string, number> }[] = [];
  readonly #documentFrequency = new Map<string, number>();
  #totalLength = 0;

  constructor(documents: Iterable<PlainDocument>) {
    for (const document of documents) {
      const terms = plainTerms(document.text);
      const frequencies = new Map<string, number>();
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      for (const term of frequencies.keys()) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      this.#documents.push({ id: document.id, length: terms.length, frequencies });
      this.#totalLength += terms.length;
    }
  }

  /** The best `limit` documents, best first; equal scores go by id. */
  search(query: string, limit = 10): { id: string; score: number }[] {
    const terms = [...new Set(plainTerms(query))];
    const average = this.#totalLength / (this.#documents.length || 1);
    const results: { id: string; score: number }[] = [];
    for (const document of this.#documents) {
      let score = 0;
      for (const term of terms) {
        const tf = document.frequencies.get(term);
        if (!tf) continue;
        const idf = inverseDocumentFrequency(this.#documents.length, this.#documentFrequency.get(term) ?? 0);
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * document.length) / average));
      }
      if (score > 0) results.push({ id: document.id, score });
    }
    results.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return results.slice(0, limit);
  }
}

function plainTerms(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}
