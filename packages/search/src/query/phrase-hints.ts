import type { PhraseHint } from "./default-phrase-hints.js";
import type { TextAnalyzer } from "../text/text-analyzer.js";

/** A phrase found in a query: where it is, and its hints as analyzed terms. */
export interface PhraseMatch {
  readonly start: number;
  readonly end: number;
  /** A label for the concept the phrase stands for (its first variant). */
  readonly label: string;
  readonly hints: readonly (readonly string[])[];
}

/** Phrase hints compiled for matching raw queries (see `defaultPhraseHints`). */
export class PhraseHintTable {
  readonly #entries: { pattern: RegExp; label: string; hints: readonly (readonly string[])[] }[];

  constructor(hints: readonly PhraseHint[], analyzer: TextAnalyzer) {
    this.#entries = hints.map((hint) => {
      const variants = hint.phrase.split("|").map((variant) => variant.trim()).filter(Boolean);
      const source = variants.map((variant) => variant.split(/\s+/).map(escapeRegExp).join("\\s+")).join("|");
      return {
        pattern: new RegExp(`(?<![\\p{L}\\p{N}'])(?:${source})(?![\\p{L}\\p{N}])`, "giu"),
        label: variants[0] ?? hint.phrase,
        hints: hint.hints.map((text) => analyzer.terms(text)).filter((terms) => terms.length > 0),
      };
    });
  }

  /** Every phrase of the table in the query; a phrase inside a longer match of an earlier entry is skipped. */
  find(query: string): PhraseMatch[] {
    const text = query.toLowerCase().replace(/’/g, "'");
    const found: PhraseMatch[] = [];
    for (const entry of this.#entries) {
      for (const match of text.matchAll(entry.pattern)) {
        const start = match.index ?? 0;
        const end = start + match[0].length;
        if (found.some((other) => start >= other.start && end <= other.end)) continue;
        found.push({ start, end, label: entry.label, hints: entry.hints });
      }
    }
    return found;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
