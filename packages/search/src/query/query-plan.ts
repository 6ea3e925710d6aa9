import { looksPlural } from "../text/looks-plural.js";
import type { PhraseHintTable } from "./phrase-hints.js";
import { findEntities } from "./query-entities.js";
import { queryWords } from "./query-words.js";
import type { SynonymTable } from "./synonym-table.js";
import type { TextAnalyzer } from "../text/text-analyzer.js";

/**
 * One way to match a concept: all of `terms` (their scores add up), scaled by `weight`.
 * `source` says where it came from: the query's own word, a synonym (or a phrase's hint), the
 * kind of a typed value ("notes.md": file), two query words written as one ("argo cd" →
 * "argocd", "to do" → "todo"), or a known term a typo away from a word the index lacks.
 */
export interface QueryAlternative {
  readonly terms: readonly string[];
  readonly weight: number;
  readonly source: "query" | "synonym" | "compound" | "entity" | "spelling";
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

/** What the query asks to be done, for judging a tool's action (see `ActionVocabulary`). */
export interface QueryIntent {
  /** The terms outside quotes, in order. */
  readonly terms: readonly string[];
  /** Per term, whether its word looks like a plural noun. */
  readonly plural: readonly boolean[];
  /** The query is a question ("which tables ...", "is the job done"): it asks to be told something. */
  readonly question: boolean;
}

export interface QueryPlan {
  readonly concepts: readonly QueryConcept[];
  readonly intent: QueryIntent;
}

type MutableConcept = { term: string; alternatives: QueryAlternative[] };

/** First words that make a query a question. */
const questionStarts = new Set(["what", "what's", "whats", "which", "who", "who's", "whose", "how", "how's", "is", "are", "was", "were", "does", "do", "did", "has", "have", "when", "where", "why"]);

/** The weights of a plan's alternatives, relative to a word of the query (1). */
export interface QueryWeights {
  /** A synonym of a query word, or a phrase's hint. */
  readonly synonym: number;
  /** Words that appear only inside quotes (content such as a message text, not the task). */
  readonly quoted: number;
  /** Words that appear only in a subordinate clause ("before you drop the table"), which sets the scene. */
  readonly context: number;
  /** The kind of a typed value in the query ("notes.md": file). */
  readonly entity: number;
  /**
   * An index term a small edit away from a query word the index does not know (a typo, a British
   * spelling), when the context can find such terms (`QueryPlanContext.similar`). @default 0 (off)
   */
  readonly spelling?: number;
  /** A word of a related-words group (`QueryPlanContext.related`) of a query word. @default 0 (off) */
  readonly related?: number;
}

/** What `planQuery` works with. */
export interface QueryPlanContext {
  readonly analyzer: TextAnalyzer;
  readonly synonyms: SynonymTable;
  readonly phrases: PhraseHintTable;
  readonly weights: QueryWeights;
  /** Whether the index has a term at all (compounds are only tried when it does). */
  readonly isKnownTerm: (term: string) => boolean;
  /** Related words (looser than synonyms: a file type and its topic, a task and its everyday words), searched at `weights.related`. @default none */
  readonly related?: SynonymTable;
  /** Index terms close in spelling to a word it does not know (word as typed, its term), closest first. @default none */
  readonly similar?: (word: string, term: string) => readonly string[];
}

/**
 * Analyzes a query into concepts: each distinct word with its synonyms and compounds, everyday
 * phrases with what tools call them ("who am I": current user), and the kind of each typed value
 * (a file name asks for a file tool).
 */
export function planQuery(query: string, context: QueryPlanContext): QueryPlan {
  const { analyzer, synonyms, weights } = context;
  const entities = findEntities(query);
  const { words, parts, quoted, context: inContext, offsets } = queryWords(query, entities);
  const concepts: MutableConcept[] = [];
  const onlyQuoted: boolean[] = [];
  const onlyContext: boolean[] = [];
  const conceptOfWord: (number | undefined)[] = [];
  const terms: string[] = [];
  const conceptOfTerm: number[] = [];
  const intentTerms: string[] = [];
  const plural: boolean[] = [];
  words.forEach((word, position) => {
    const term = analyzer.term(word);
    if (term === undefined) {
      conceptOfWord.push(undefined);
      return;
    }
    let index = concepts.findIndex((concept) => concept.term === term);
    if (index < 0) {
      index = concepts.push({ term, alternatives: [{ terms: [term], weight: 1, source: "query" }] }) - 1;
      const spelling = weights.spelling ?? 0;
      if (spelling > 0 && context.similar && !context.isKnownTerm(term)) {
        for (const similar of context.similar(word, term)) addAlternative(concepts[index], { terms: [similar], weight: spelling, source: "spelling" });
      }
    }
    // "GitHub" also matches text that spells it "Git Hub" or splits it as an identifier.
    const partTerms = (parts[position] ?? []).map((part) => analyzer.term(part)).filter((t): t is string => t !== undefined);
    if (partTerms.length > 0) addAlternative(concepts[index], { terms: partTerms, weight: 1, source: "query" });
    onlyQuoted[index] = (onlyQuoted[index] ?? true) && (quoted[position] as boolean);
    onlyContext[index] = (onlyContext[index] ?? true) && (inContext[position] as boolean);
    conceptOfWord.push(index);
    terms.push(term);
    conceptOfTerm.push(index);
    if (!quoted[position] && !inContext[position]) {
      intentTerms.push(term);
      plural.push(looksPlural(word));
    }
  });
  addCompounds(words, conceptOfWord, concepts, analyzer, context.isKnownTerm, weights.synonym);

  const originals = new Set(terms);
  for (const expansion of synonyms.expand(terms)) {
    // A synonym that is itself a word of the query is already searched at full weight.
    if (expansion.terms.length === 1 && originals.has(expansion.terms[0] as string)) continue;
    for (const index of new Set(conceptOfTerm.slice(expansion.start, expansion.end))) {
      addAlternative(concepts[index], { terms: expansion.terms, weight: weights.synonym, source: "synonym" });
    }
  }
  const related = weights.related ?? 0;
  if (related > 0 && context.related) {
    for (const expansion of context.related.expand(terms)) {
      if (expansion.terms.length === 1 && originals.has(expansion.terms[0] as string)) continue;
      for (const index of new Set(conceptOfTerm.slice(expansion.start, expansion.end))) addAlternative(concepts[index], { terms: expansion.terms, weight: related, source: "synonym" });
    }
  }
  // A phrase's hints join the concepts of its words; a phrase of filler words ("who am I") is a concept of its own.
  for (const phrase of context.phrases.find(query)) {
    const covered = new Set<number>();
    offsets.forEach((offset, position) => {
      const index = conceptOfWord[position];
      if (index !== undefined && !quoted[position] && offset >= phrase.start && offset < phrase.end) covered.add(index);
    });
    const alternatives = phrase.hints.filter((hint) => !(hint.length === 1 && originals.has(hint[0] as string))).map((hint) => ({ terms: hint, weight: weights.synonym, source: "synonym" as const }));
    if (covered.size > 0) for (const index of covered) for (const alternative of alternatives) addAlternative(concepts[index], alternative);
    else if (alternatives.length > 0 && !concepts.some((concept) => concept.term === phrase.label)) concepts.push({ term: phrase.label, alternatives });
  }
  // A typed value (a file name, a URL, coordinates) asks for a tool that handles that kind of thing.
  for (const entity of entities) {
    const label = entity.kinds.join(" ");
    if (concepts.some((concept) => concept.term === label)) continue;
    const alternatives = entity.kinds.map((kind) => ({ terms: analyzer.terms(kind), weight: weights.entity, source: "entity" as const })).filter((a) => a.terms.length > 0);
    if (alternatives.length > 0) concepts.push({ term: label, alternatives });
  }
  const question = questionStarts.has(query.trim().toLowerCase().replace(/’/g, "'").split(/[^\p{L}\p{N}']+/u)[0] ?? "");
  // Quoted words are content (a message to post, a text to find), and words of a subordinate
  // clause set the scene: neither says what the tool should do.
  const scale = (concept: MutableConcept, factor: number): MutableConcept => ({ ...concept, alternatives: concept.alternatives.map((a) => ({ ...a, weight: a.weight * factor })) });
  return {
    intent: { terms: intentTerms, plural, question },
    concepts: concepts.map((concept, index) => (onlyQuoted[index] ? scale(concept, weights.quoted) : onlyContext[index] ? scale(concept, weights.context) : concept)),
  };
}

/**
 * Two words that the index knows as one word match as that word too: adjacent ones at full weight
 * ("web hook" → webhook), content words a few places apart, in either order, at `apart`
 * ("log 2 hours of work" → worklog).
 */
function addCompounds(words: readonly string[], conceptOfWord: (number | undefined)[], concepts: MutableConcept[], analyzer: TextAnalyzer, isKnownTerm: (term: string) => boolean, apart: number): void {
  const add = (first: number, second: number, weight: number): void => {
    const term = analyzer.term(`${words[first]}${words[second]}`);
    if (term === undefined || !isKnownTerm(term) || concepts.some((concept) => concept.term === term)) return;
    const covered = [conceptOfWord[first], conceptOfWord[second]].filter((index): index is number => index !== undefined);
    const alternative = { terms: [term], weight, source: "compound" as const };
    if (covered.length === 0) concepts.push({ term, alternatives: [alternative] });
    for (const index of new Set(covered)) addAlternative(concepts[index], alternative);
  };
  for (let i = 0; i + 1 < words.length; i++) {
    // Two filler words never make a tool word ("for the" is not "forth").
    if (conceptOfWord[i] === undefined && conceptOfWord[i + 1] === undefined) continue;
    add(i, i + 1, 1);
  }
  if (apart <= 0) return;
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < Math.min(words.length, i + 5); j++) {
      if (conceptOfWord[i] === undefined || conceptOfWord[j] === undefined || conceptOfWord[i] === conceptOfWord[j]) continue;
      if (j > i + 1) add(i, j, apart);
      add(j, i, apart);
    }
  }
}

function addAlternative(concept: MutableConcept | undefined, alternative: QueryAlternative): void {
  if (!concept || concept.alternatives.some((a) => sameTerms(a.terms, alternative.terms))) return;
  concept.alternatives.push(alternative);
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
