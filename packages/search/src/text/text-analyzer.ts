import { stem } from "porter2";
import { splitChunk } from "./split-words.js";
import { defaultStopWords } from "./stop-words.js";

export interface TextAnalyzerOptions {
  /** Words dropped before stemming. @default defaultStopWords */
  readonly stopWords?: ReadonlySet<string>;
  /** Words shorter than this are dropped (after splitting). @default 2 */
  readonly minLength?: number;
}

/**
 * Turns text into search terms: split into words (identifier-aware), lowercase, stop words out,
 * Porter2-stemmed so "issues"/"issue" and "deploying"/"deploy" meet. Stems are memoised per
 * analyzer, which keeps indexing 10,000 tools fast.
 */
export class TextAnalyzer {
  readonly #stopWords: ReadonlySet<string>;
  readonly #minLength: number;
  readonly #stems = new Map<string, string>();
  readonly #chunks = new Map<string, readonly string[]>();

  constructor(options: TextAnalyzerOptions = {}) {
    this.#stopWords = options.stopWords ?? defaultStopWords;
    this.#minLength = options.minLength ?? 2;
  }

  /** The terms of a text, in order (repeats kept: term frequency matters). */
  terms(text: string): string[] {
    const terms: string[] = [];
    for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const chunk = match[0];
      let chunkTerms = this.#chunks.get(chunk);
      if (chunkTerms === undefined) {
        const { parts, whole } = splitChunk(chunk);
        chunkTerms = [...parts, ...(whole === undefined ? [] : [whole])].map((word) => this.term(word)).filter((term): term is string => term !== undefined);
        // Bounded: identifiers and numbers would otherwise grow the memo without limit.
        if (this.#chunks.size < 200_000) this.#chunks.set(chunk, chunkTerms);
      }
      for (const term of chunkTerms) terms.push(term);
    }
    return terms;
  }

  /** The term for one already-split lowercase word, or undefined for a stop word or a too-short one. */
  term(word: string): string | undefined {
    if (word.length < this.#minLength || this.#stopWords.has(word)) return undefined;
    let stemmed = this.#stems.get(word);
    if (stemmed === undefined) {
      stemmed = /^[a-z]+$/.test(word) ? stem(word) : word;
      if (this.#stems.size < 200_000) this.#stems.set(word, stemmed);
    }
    return stemmed;
  }
}
