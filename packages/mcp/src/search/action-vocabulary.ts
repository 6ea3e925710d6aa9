import type { TextAnalyzer } from "@thinktank/search";
import type { ActionGroup } from "./default-actions.js";

/** What a query or a tool name says about the action: the action groups named, and whether it is about one thing or many. */
export interface ActionProfile {
  /** Indexes into the vocabulary's groups, ascending, no repeats. */
  readonly groups: readonly number[];
  /** The groups of the first term alone, when it is a verb (the action an imperative asks for). */
  readonly leading: readonly number[];
  /** 1: about many things (a plural object, "list", "all"); -1: about one thing; 0: cannot tell. */
  readonly number: -1 | 0 | 1;
}

const manyWords = new Set(["list", "all", "every", "search", "find", "query", "which", "mani", "batch", "bulk", "multipl"]);
const oneWords = new Set(["get", "read", "describ", "view", "retriev", "fetch", "detail", "info"]);

/**
 * Action groups compiled into analyzed terms. A query's profile is the union of the groups of its
 * verbs; a tool's is the union of the groups of the verbs in its name. Multi-word verbs ("look
 * up", "kick off") match as consecutive terms.
 */
export class ActionVocabulary {
  readonly #groups: readonly ActionGroup[];
  /** First term of a verb → the verbs (as terms) starting with it, their group, and whether they count only at the start. */
  readonly #byFirstTerm = new Map<string, { terms: readonly string[]; group: number; leadingOnly: boolean }[]>();

  constructor(groups: readonly ActionGroup[], analyzer: TextAnalyzer) {
    this.#groups = groups;
    groups.forEach((group, index) => {
      const verbs = [...group.verbs.map((verb) => ({ verb, leadingOnly: false })), ...(group.leadingVerbs ?? []).map((verb) => ({ verb, leadingOnly: true }))];
      for (const { verb, leadingOnly } of verbs) {
        const terms = analyzer.terms(verb);
        const first = terms[0];
        if (first === undefined) continue;
        const list = this.#byFirstTerm.get(first) ?? [];
        if (!list.some((entry) => entry.group === index && entry.terms.join(" ") === terms.join(" "))) list.push({ terms, group: index, leadingOnly });
        this.#byFirstTerm.set(first, list);
      }
    });
  }

  get groupCount(): number {
    return this.#groups.length;
  }

  /** Whether the group's action leaves things as they were (list, get, search ...). */
  reads(group: number): boolean {
    return this.#groups[group]?.reads ?? false;
  }

  /** Every group that reads, ascending (what a question without a verb asks for). */
  readingGroups(): number[] {
    return this.#groups.flatMap((group, index) => (group.reads ? [index] : []));
  }

  /**
   * The profile of analyzed terms. `plural` says, per term, whether its word was a plural noun
   * (the analyzer folds "tables" into "tabl", so the caller tells).
   */
  profile(terms: readonly string[], plural: readonly boolean[] = []): ActionProfile {
    const groups = new Set<number>();
    const leading = new Set<number>();
    let many = false;
    let one = false;
    terms.forEach((term, start) => {
      let isVerb = false;
      for (const entry of this.#byFirstTerm.get(term) ?? []) {
        if (entry.leadingOnly && start !== 0) continue;
        if (entry.terms.every((t, i) => terms[start + i] === t)) {
          groups.add(entry.group);
          if (start === 0) leading.add(entry.group);
          isVerb = true;
        }
      }
      if (manyWords.has(term)) many = true;
      else if (oneWords.has(term)) one = true;
      if (!isVerb && plural[start]) many = true;
    });
    const sorted = (set: Set<number>) => [...set].sort((a, b) => a - b);
    return { groups: sorted(groups), leading: sorted(leading), number: many ? 1 : one ? -1 : 0 };
  }
}

/** Whether two ascending lists share a member. */
export function shareAny(a: readonly number[], b: readonly number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) return true;
    if (x < y) i++;
    else j++;
  }
  return false;
}
