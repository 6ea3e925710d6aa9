import type { TextAnalyzer } from "../text/text-analyzer.js";

/** A synonym found in a query: `terms` may be searched for query positions `start` to `end` (exclusive). */
export interface SynonymExpansion {
  readonly start: number;
  readonly end: number;
  readonly terms: readonly string[];
}

interface Phrase {
  readonly terms: readonly string[];
  readonly group: number;
}

/**
 * Synonym groups compiled into analyzed terms, so "pull requests" in a query finds "pr" and
 * "merge request" (and the other way round). Members may be phrases; a phrase matches only when
 * its terms appear consecutively in the query.
 */
export class SynonymTable {
  readonly #groups: (readonly string[])[][] = [];
  readonly #byFirstTerm = new Map<string, Phrase[]>();

  constructor(groups: readonly (readonly string[])[], analyzer: TextAnalyzer) {
    for (const group of groups) {
      const members = dedupe(group.map((member) => analyzer.terms(member)).filter((terms) => terms.length > 0));
      if (members.length < 2) continue;
      const index = this.#groups.push(members) - 1;
      for (const terms of members) {
        const first = terms[0] as string;
        const list = this.#byFirstTerm.get(first) ?? [];
        list.push({ terms, group: index });
        this.#byFirstTerm.set(first, list);
      }
    }
  }

  /** Every synonym of every phrase found in the analyzed query terms. */
  expand(queryTerms: readonly string[]): SynonymExpansion[] {
    const expansions: SynonymExpansion[] = [];
    const seen = new Set<string>();
    queryTerms.forEach((term, start) => {
      for (const phrase of this.#byFirstTerm.get(term) ?? []) {
        const end = start + phrase.terms.length;
        if (!phrase.terms.every((t, i) => queryTerms[start + i] === t)) continue;
        for (const member of this.#groups[phrase.group] ?? []) {
          if (sameTerms(member, phrase.terms)) continue;
          const key = `${start}:${end}:${member.join(" ")}`;
          if (seen.has(key)) continue;
          seen.add(key);
          expansions.push({ start, end, terms: member });
        }
      }
    });
    return expansions;
  }
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function dedupe(members: string[][]): string[][] {
  const seen = new Set<string>();
  return members.filter((terms) => {
    const key = terms.join(" ");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
