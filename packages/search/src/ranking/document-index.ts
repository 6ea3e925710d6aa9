import { ThinktankError } from "@thinktank/core";
import { defaultPhraseHints, type PhraseHint } from "../query/default-phrase-hints.js";
import { defaultSynonymGroups } from "../query/default-synonyms.js";
import { PhraseHintTable } from "../query/phrase-hints.js";
import { SimilarTerms } from "../query/similar-terms.js";
import { planQuery, type QueryWeights } from "../query/query-plan.js";
import { SynonymTable } from "../query/synonym-table.js";
import { TextAnalyzer, type TextAnalyzerOptions } from "../text/text-analyzer.js";
import { buildSegment, type DocumentTerms } from "./document-segment.js";
import type { ScoringWeights } from "./scoring-weights.js";
import { SegmentedIndex } from "./segmented-index.js";

/** A document as text: an id unique in the index and the text of each named field. */
export interface SearchDocument {
  readonly id: string;
  /** Field name → text; fields the index does not know are ignored, missing ones are empty. */
  readonly fields: Readonly<Record<string, string | undefined>>;
  readonly deprecated?: boolean;
}

/** The ranking of a `DocumentIndex`: field weights by the index's field names, and how queries are read. */
export type DocumentIndexWeights = ScoringWeights & QueryWeights;

export interface DocumentIndexOptions {
  /** The field names, most telling first; `weights.fields` and `.lengthNormalization` are keyed by them. */
  readonly fields: readonly string[];
  /** The field whose words are the document's name (the name bonus). @default fields[0] */
  readonly nameField?: string;
  readonly weights: DocumentIndexWeights;
  /** Synonym groups. @default defaultSynonymGroups */
  readonly synonyms?: readonly (readonly string[])[];
  /** Related-words groups, searched at `weights.related` (looser than synonyms). @default none */
  readonly related?: readonly (readonly string[])[];
  /** Everyday phrases and what documents call them. @default defaultPhraseHints */
  readonly phraseHints?: readonly PhraseHint[];
  /** Tokenisation options, or an analyzer to share: its stem memo makes the next index over similar text faster to build. */
  readonly analyzer?: TextAnalyzerOptions | TextAnalyzer;
}

/**
 * Ranked search over a fixed set of documents with named, weighted text fields: the engine of
 * tool search (text analysis, synonyms, phrase hints, query plan, BM25F with coverage and name
 * bonus) without anything tool-specific. Built once; immutable.
 */
export class DocumentIndex {
  readonly #analyzer: TextAnalyzer;
  readonly #synonyms: SynonymTable;
  readonly #phrases: PhraseHintTable;
  readonly #related: SynonymTable | undefined;
  readonly #weights: DocumentIndexWeights;
  readonly #engine: SegmentedIndex;
  /** The index's terms by spelling, made on the first query with a word the index lacks (only when `weights.spelling` is set). */
  #similar: SimilarTerms | undefined;

  constructor(documents: readonly SearchDocument[], options: DocumentIndexOptions) {
    const { fields } = options;
    const nameField = options.nameField ?? fields[0];
    if (fields.length === 0 || nameField === undefined || !fields.includes(nameField)) {
      throw new ThinktankError("VALIDATION_FAILED", `a document index needs fields, and its name field among them; got fields ${JSON.stringify(fields)}, name field ${JSON.stringify(nameField)}`);
    }
    this.#weights = options.weights;
    this.#analyzer = options.analyzer instanceof TextAnalyzer ? options.analyzer : new TextAnalyzer(options.analyzer);
    this.#synonyms = new SynonymTable(options.synonyms ?? defaultSynonymGroups, this.#analyzer);
    this.#phrases = new PhraseHintTable(options.phraseHints ?? defaultPhraseHints, this.#analyzer);
    this.#related = options.related && options.related.length > 0 ? new SynonymTable(options.related, this.#analyzer) : undefined;
    this.#engine = new SegmentedIndex({ fields, weights: options.weights });
    const ids = new Set<string>();
    const analyzed = documents.map((document): DocumentTerms => {
      if (ids.has(document.id)) throw new ThinktankError("VALIDATION_FAILED", `duplicate document id '${document.id}'`);
      ids.add(document.id);
      const terms = fields.map((field) => this.#analyzer.terms(document.fields[field] ?? ""));
      return { id: document.id, fields: terms, nameTerms: [...new Set(terms[fields.indexOf(nameField)])], deprecated: document.deprecated ?? false };
    });
    this.#engine.put(buildSegment("", "", fields.length, analyzed));
  }

  get size(): number {
    return this.#engine.documentCount;
  }

  /** The documents that best match a natural-language query, best first (equal scores by id); empty for a query of filler words. */
  search(query: string, limit = 10): { id: string; score: number }[] {
    const similar = (this.#weights.spelling ?? 0) > 0 ? (word: string, term: string) => (this.#similar ??= new SimilarTerms(this.#engine.terms())).find(word, term) : undefined;
    const plan = planQuery(query, { analyzer: this.#analyzer, synonyms: this.#synonyms, phrases: this.#phrases, weights: this.#weights, isKnownTerm: (term) => this.#engine.has(term), ...(similar ? { similar } : {}), ...(this.#related ? { related: this.#related } : {}) });
    return this.#engine.top(plan, { depth: limit }).map(({ segment, document, score }) => ({ id: segment.ids[document] as string, score }));
  }
}
