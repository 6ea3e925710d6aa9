/**
 * The knobs of field-weighted scoring (`scoreDocuments`). Each user of the engine tunes its own on
 * its own gold pairs: tools in packages/mcp (`defaultRankingWeights`), skills in packages/skills.
 */
export interface ScoringWeights {
  /** BM25F weight of each field, by field name. */
  readonly fields: Readonly<Record<string, number>>;
  /** BM25F length normalisation of each field (0: none, 1: full). */
  readonly lengthNormalization: Readonly<Record<string, number>>;
  /** BM25 term-frequency saturation. */
  readonly k1: number;
  /** How much the share of the query's concepts a document matches counts (0: off, 1: a document matching half the concepts scores half). */
  readonly coverage: number;
  /** A concept counts as fully matched once it scores this share of its best possible score (lower: weak matches count more). */
  readonly fullMatch: number;
  /** Bonus for a document whose name words are all asked for, relative to its score (0: off). */
  readonly nameMatch: number;
  /** Score multiplier for a deprecated document (1: no penalty). */
  readonly deprecated: number;
}
