/** Where one term occurs in a segment: document indexes and, per document, the term's frequency in each field. */
export interface Postings {
  readonly documents: Int32Array;
  /** `documents.length × fieldCount` frequencies, document by document. */
  readonly frequencies: Float32Array;
}

/** One document of a segment, already analyzed: what `buildSegment` indexes. */
export interface DocumentTerms {
  /** Unique within its segment; equal scores are ordered by it. */
  readonly id: string;
  /** The analyzed terms of each field, in the index's field order. */
  readonly fields: readonly (readonly string[])[];
  /** The distinct terms of the document's name that a query may ask for (the name bonus, see `ScoringWeights.nameMatch`). */
  readonly nameTerms: readonly string[];
  /** Scored down by `ScoringWeights.deprecated`. */
  readonly deprecated?: boolean;
}

/**
 * The index of one group of documents (a server's tools, a snapshot's skills). Groups change
 * independently, so each is indexed on its own and swapped in or out of a `SegmentedIndex` whole.
 */
export interface Segment {
  readonly key: string;
  /** Says whether a new version of the group differs from this one (the caller decides what it hashes). */
  readonly fingerprint: string;
  readonly fieldCount: number;
  readonly ids: readonly string[];
  /** `ids.length × fieldCount` field lengths, in terms. */
  readonly fieldLengths: Float32Array;
  readonly postings: ReadonlyMap<string, Postings>;
  /** Per document: the distinct terms of its name (see `DocumentTerms.nameTerms`). */
  readonly nameTerms: readonly (readonly string[])[];
  /** 1 for a deprecated document. */
  readonly deprecated: Uint8Array;
}

/** Indexes analyzed documents as one segment (the generic part; callers extend the result with their own per-document data). */
export function buildSegment(key: string, fingerprint: string, fieldCount: number, documents: readonly DocumentTerms[]): Segment {
  const fieldLengths = new Float32Array(documents.length * fieldCount);
  const building = new Map<string, { documents: number[]; frequencies: number[] }>();
  const deprecated = new Uint8Array(documents.length);
  documents.forEach((document, documentIndex) => {
    const counts = new Map<string, Float32Array>();
    for (let fieldIndex = 0; fieldIndex < fieldCount; fieldIndex++) {
      const terms = document.fields[fieldIndex] ?? [];
      fieldLengths[documentIndex * fieldCount + fieldIndex] = terms.length;
      for (const term of terms) {
        let row = counts.get(term);
        if (!row) counts.set(term, (row = new Float32Array(fieldCount)));
        row[fieldIndex] = (row[fieldIndex] ?? 0) + 1;
      }
    }
    for (const [term, row] of counts) {
      let entry = building.get(term);
      if (!entry) building.set(term, (entry = { documents: [], frequencies: [] }));
      entry.documents.push(documentIndex);
      for (const value of row) entry.frequencies.push(value);
    }
    if (document.deprecated) deprecated[documentIndex] = 1;
  });
  const postings = new Map<string, Postings>();
  for (const [term, entry] of building) {
    postings.set(term, { documents: Int32Array.from(entry.documents), frequencies: Float32Array.from(entry.frequencies) });
  }
  return {
    key,
    fingerprint,
    fieldCount,
    ids: documents.map((document) => document.id),
    fieldLengths,
    postings,
    nameTerms: documents.map((document) => document.nameTerms),
    deprecated,
  };
}
