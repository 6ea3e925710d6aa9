/** Collection-wide statistics that BM25 needs, kept up to date as servers come and go. */
export interface SearchStats {
  readonly toolCount: number;
  /** term → number of tools that contain it (any field). */
  readonly documentFrequency: ReadonlyMap<string, number>;
  readonly averageFieldLengths: Float64Array;
  readonly serverCount: number;
  /** term → server → frequency of the term in that server's profile. */
  readonly serverPostings: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** server → length of its profile, in terms. */
  readonly profileLengths: ReadonlyMap<string, number>;
  readonly averageProfileLength: number;
  /** term → the servers whose own names contain it. */
  readonly serverNames: ReadonlyMap<string, ReadonlySet<string>>;
}

/** BM25 inverse document frequency (the "plus one" variant, never negative). */
export function inverseDocumentFrequency(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}
