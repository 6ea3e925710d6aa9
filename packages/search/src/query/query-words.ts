import type { QueryEntity } from "./query-entities.js";
import { splitChunks } from "../text/split-words.js";

/** The words of a query, in order, with what the plan needs to know about each. */
export interface QueryWords {
  /** Lowercase words (a CamelCase or letter-digit word stays whole: "github", "r2"). */
  readonly words: readonly string[];
  /** For a whole word, its parts ("GitHub": git, hub). */
  readonly parts: readonly (readonly string[] | undefined)[];
  /** Whether the word is content rather than the task (quoted, a name after "called", a file name). */
  readonly quoted: readonly boolean[];
  /** Whether the word is in a clause that sets the scene rather than asks ("before you drop the table", "so it runs hourly"). */
  readonly context: readonly boolean[];
  /** Where each word's run of letters and digits starts in the query. */
  readonly offsets: readonly number[];
}

// Quoted text, and what follows "called", "named", "titled", "saying" or "remember that" up to the clause's end.
const quotedSpan = /(?<![\p{L}\p{N}])(?:"([^"]+)"|'([^']+)'(?![\p{L}\p{N}])|`([^`]+)`|“([^”]+)”|‘([^’]+)’)|\b(?:called|named|titled|saying|(?:remember|note|noting)\s+that)\s+([^,.;:!?"“‘`]+)/giu;
// A subordinate clause, from its conjunction to the clause's end.
const contextSpan = /\b(?:before|after|once|until|unless|because|since|so that|so|while|whenever|in case)\s+[^,.;:!?"“‘`]+/giu;

/**
 * Splits a query into words. Content is what the tool should handle, not what it should do:
 * text inside quotes ("...", '...', `...`, “...”), a name or message after "called", "named",
 * "titled" or "saying", and typed values such as file names (`entities` with `content`).
 */
export function queryWords(query: string, entities: readonly QueryEntity[] = []): QueryWords {
  const spans: { start: number; end: number }[] = [];
  for (const match of query.matchAll(quotedSpan)) {
    const content = match.slice(1).find((group) => group !== undefined) ?? "";
    const start = (match.index ?? 0) + match[0].lastIndexOf(content);
    spans.push({ start, end: start + content.length });
  }
  for (const entity of entities) if (entity.content) spans.push(entity);
  const contexts: { start: number; end: number }[] = [];
  for (const match of query.matchAll(contextSpan)) {
    const start = match.index ?? 0;
    // A clause that opens the query is context only when a main clause follows it ("before you drop it, ask me").
    if (query.slice(0, start).trim() === "" && !/[,;:]/.test(query.slice(start))) continue;
    contexts.push({ start, end: start + match[0].length });
  }

  const words: string[] = [];
  const parts: (readonly string[] | undefined)[] = [];
  const quoted: boolean[] = [];
  const context: boolean[] = [];
  const offsets: number[] = [];
  for (const match of query.matchAll(/[\p{L}\p{N}]+/gu)) {
    const offset = match.index ?? 0;
    const inSpan = spans.some((span) => offset >= span.start && offset < span.end);
    const inContext = contexts.some((span) => offset >= span.start && offset < span.end);
    const [chunk] = splitChunks(match[0]);
    if (!chunk) continue;
    const entries = chunk.whole !== undefined ? [{ word: chunk.whole, parts: chunk.parts }] : chunk.parts.map((word) => ({ word, parts: undefined }));
    for (const entry of entries) {
      if (!/\p{L}/u.test(entry.word) && entry.word.length < 2) continue;
      words.push(entry.word);
      parts.push(entry.parts);
      quoted.push(inSpan);
      context.push(inContext && !inSpan);
      offsets.push(offset);
    }
  }
  return { words, parts, quoted, context, offsets };
}
