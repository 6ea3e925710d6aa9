/** Collection-wide statistics that BM25 needs, kept up to date as segments come and go. */
export interface SearchStats {
  readonly documentCount: number;
  readonly segmentCount: number;
  /** term → number of documents that contain it (any field). */
  readonly documentFrequency: Pick<ReadonlyMap<string, number>, "get">;
  readonly averageFieldLengths: Float64Array;
}

/** BM25 inverse document frequency (the "plus one" variant, never negative). */
export function inverseDocumentFrequency(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}
