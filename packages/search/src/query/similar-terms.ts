/**
 * Spelling tolerance: the index terms within a small edit distance of a query word the index does
 * not know ("dokerfile" → dockerfil, "securty" → secur, "colour" → color). Letters only; the first
 * letter must match (typing slips rarely hit it, and it cuts the candidates twentyfold); one edit
 * (a letter added, dropped, changed, or two swapped) for words of `minLength` letters, two from
 * `twoEditsFrom`. Both the word as typed and its stem are compared with the index's stems, and
 * the closest terms win (the more frequent first among equals).
 */
export class SimilarTerms {
  readonly #byFirst = new Map<string, { term: string; frequency: number }[]>();
  readonly #minLength: number;
  readonly #twoEditsFrom: number;

  /**
   * @param terms each index term with its document frequency
   * @param options.minLength the shortest word corrected @default 5
   * @param options.twoEditsFrom the shortest word allowed two edits @default 8
   */
  constructor(terms: Iterable<readonly [term: string, frequency: number]>, options: { readonly minLength?: number; readonly twoEditsFrom?: number } = {}) {
    this.#minLength = options.minLength ?? 5;
    this.#twoEditsFrom = options.twoEditsFrom ?? 8;
    for (const [term, frequency] of terms) {
      if (term.length < 3 || !/^[a-z]+$/.test(term)) continue;
      const bucket = this.#byFirst.get(term.charAt(0)) ?? [];
      bucket.push({ term, frequency });
      this.#byFirst.set(term.charAt(0), bucket);
    }
  }

  /** At most `limit` index terms close to `word` (as typed, lowercase) or to its stem `term`, closest first. */
  find(word: string, term: string, limit = 2): string[] {
    if (word.length < this.#minLength || !/^[a-z]+$/.test(word)) return [];
    const allowed = word.length >= this.#twoEditsFrom ? 2 : 1;
    const found: { term: string; distance: number; frequency: number }[] = [];
    for (const candidate of this.#byFirst.get(word.charAt(0)) ?? []) {
      const distance = Math.min(editDistance(word, candidate.term, allowed), term === word ? allowed + 1 : editDistance(term, candidate.term, allowed));
      if (distance <= allowed && candidate.term !== term) found.push({ ...candidate, distance });
    }
    found.sort((a, b) => a.distance - b.distance || b.frequency - a.frequency || (a.term < b.term ? -1 : 1));
    return found.slice(0, limit).map((candidate) => candidate.term);
  }
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions and swaps of adjacent
 * letters), or `bound + 1` as soon as it must exceed `bound`.
 */
export function editDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) value = Math.min(value, (previous2[j - 2] as number) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > bound) return bound + 1;
    previous2 = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, bound + 1);
}
