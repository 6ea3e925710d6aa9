/** Turns texts into vectors whose cosine similarity reflects meaning (the optional semantic stage of a search). */
export interface Embedder {
  /** One vector per text, in the same order; rejects when the provider fails. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
