import { splitChunks } from "./split-words.js";
import type { SynonymTable } from "./synonym-table.js";
import type { TextAnalyzer } from "./text-analyzer.js";

/**
 * One way to match a concept: all of `terms` (their scores add up), scaled by `weight`.
 * `source` says where it came from: the query's own word, a synonym, or two query words
 * written as one ("argo cd" → "argocd", "to do" → "todo").
 */
export interface QueryAlternative {
  readonly terms: readonly string[];
  readonly weight: number;
  readonly source: "query" | "synonym" | "compound";
}

/**
 * One distinct word of the query. A tool's score for a concept is its best alternative: the word
 * itself (weight 1) or one of its synonyms (lower weight), so synonyms widen recall without
 * letting a description that says "create, add and insert" score three times.
 */
export interface QueryConcept {
  readonly term: string;
  readonly alternatives: readonly QueryAlternative[];
}

export interface QueryPlan {
  readonly concepts: readonly QueryConcept[];
}

type MutableConcept = { term: string; alternatives: QueryAlternative[] };

/** Question words say what kind of answer is wanted, though they are stop words themselves. */
const questionWords: Readonly<Record<string, readonly string[]>> = {
  who: ["user", "member", "people"],
  when: ["date", "time", "schedule"],
  where: ["location", "place", "address"],
};

/**
 * Analyzes a query and attaches synonyms and compounds to the concepts they stand for.
 * `isKnownTerm` says whether the index has a term at all (compounds are only tried when it does).
 */
export function planQuery(
  query: string,
  analyzer: TextAnalyzer,
  synonyms: SynonymTable,
  weights: { readonly synonym: number; readonly quoted: number },
  isKnownTerm: (term: string) => boolean,
): QueryPlan {
  const { words, parts, quoted } = queryWords(query);
  const concepts: MutableConcept[] = [];
  const onlyQuoted: boolean[] = [];
  const conceptOfWord: (number | undefined)[] = [];
  const terms: string[] = [];
  const conceptOfTerm: number[] = [];
  words.forEach((word, position) => {
    const term = analyzer.term(word);
    if (term === undefined) {
      conceptOfWord.push(undefined);
      const hints = questionWords[word];
      if (hints && !concepts.some((concept) => concept.term === word)) {
        const alternatives = hints.map((hint) => ({ terms: analyzer.terms(hint), weight: weights.synonym, source: "synonym" as const }));
        concepts.push({ term: word, alternatives });
      }
      return;
    }
    let index = concepts.findIndex((concept) => concept.term === term);
    if (index < 0) index = concepts.push({ term, alternatives: [{ terms: [term], weight: 1, source: "query" }] }) - 1;
    // "GitHub" also matches text that spells it "Git Hub" or splits it as an identifier.
    const partTerms = (parts[position] ?? []).map((part) => analyzer.term(part)).filter((t): t is string => t !== undefined);
    if (partTerms.length > 0) addAlternative(concepts[index], { terms: partTerms, weight: 1, source: "query" });
    onlyQuoted[index] = (onlyQuoted[index] ?? true) && (quoted[position] as boolean);
    conceptOfWord.push(index);
    terms.push(term);
    conceptOfTerm.push(index);
  });
  addCompounds(words, conceptOfWord, concepts, analyzer, isKnownTerm);

  const originals = new Set(terms);
  for (const expansion of synonyms.expand(terms)) {
    // A synonym that is itself a word of the query is already searched at full weight.
    if (expansion.terms.length === 1 && originals.has(expansion.terms[0] as string)) continue;
    for (const index of new Set(conceptOfTerm.slice(expansion.start, expansion.end))) {
      addAlternative(concepts[index], { terms: expansion.terms, weight: weights.synonym, source: "synonym" });
    }
  }
  // Quoted words are content (a message to post, a text to find), not what the tool should do.
  return {
    concepts: concepts.map((concept, index) =>
      onlyQuoted[index] ? { ...concept, alternatives: concept.alternatives.map((a) => ({ ...a, weight: a.weight * weights.quoted })) } : concept,
    ),
  };
}

/**
 * The query's words, for each the parts of a CamelCase or letter-digit word ("GitHub": git, hub),
 * and whether it is content rather than the task: inside quotes ("...", '...', `...`, “...”) or
 * a name or message after "called", "named", "titled" or "saying".
 */
function queryWords(query: string): { words: string[]; parts: (readonly string[] | undefined)[]; quoted: boolean[] } {
  const words: string[] = [];
  const parts: (readonly string[] | undefined)[] = [];
  const quoted: boolean[] = [];
  // Quoted text, and what follows "called", "named", "titled" or "saying" up to the clause's end.
  const quotedSpan = /(?<![\p{L}\p{N}])(?:"([^"]+)"|'([^']+)'(?![\p{L}\p{N}])|`([^`]+)`|“([^”]+)”|‘([^’]+)’)|\b(?:called|named|titled|saying)\s+([^,.;:!?"“‘`]+)/giu;
  let last = 0;
  const add = (text: string, inQuotes: boolean): void => {
    for (const chunk of splitChunks(text)) {
      const entries = chunk.whole !== undefined ? [{ word: chunk.whole, parts: chunk.parts }] : chunk.parts.map((word) => ({ word, parts: undefined }));
      for (const entry of entries) {
        if (!/\p{L}/u.test(entry.word) && entry.word.length < 2) continue;
        words.push(entry.word);
        parts.push(entry.parts);
        quoted.push(inQuotes);
      }
    }
  };
  for (const match of query.matchAll(quotedSpan)) {
    const content = match.slice(1).find((group) => group !== undefined) ?? "";
    const contentStart = (match.index ?? 0) + match[0].lastIndexOf(content);
    add(query.slice(last, contentStart), false);
    add(content, true);
    last = contentStart + content.length;
  }
  add(query.slice(last), false);
  return { words, parts, quoted };
}

/** Two adjacent words that the index knows as one word ("web hook" → webhook) match as that word too. */
function addCompounds(words: string[], conceptOfWord: (number | undefined)[], concepts: MutableConcept[], analyzer: TextAnalyzer, isKnownTerm: (term: string) => boolean): void {
  for (let i = 0; i + 1 < words.length; i++) {
    // Two filler words never make a tool word ("for the" is not "forth").
    if (conceptOfWord[i] === undefined && conceptOfWord[i + 1] === undefined) continue;
    const term = analyzer.term(`${words[i]}${words[i + 1]}`);
    if (term === undefined || !isKnownTerm(term) || concepts.some((concept) => concept.term === term)) continue;
    const covered = [conceptOfWord[i], conceptOfWord[i + 1]].filter((index): index is number => index !== undefined);
    const alternative = { terms: [term], weight: 1, source: "compound" as const };
    if (covered.length === 0) concepts.push({ term, alternatives: [alternative] });
    for (const index of new Set(covered)) addAlternative(concepts[index], alternative);
  }
}

function addAlternative(concept: MutableConcept | undefined, alternative: QueryAlternative): void {
  if (!concept || concept.alternatives.some((a) => sameTerms(a.terms, alternative.terms))) return;
  concept.alternatives.push(alternative);
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
