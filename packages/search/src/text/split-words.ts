/**
 * One run of letters and digits from a text, split into its identifier parts. `whole` is set when
 * the run is also worth matching as one word: a product name written in CamelCase ("GitHub",
 * "OneDrive") or mixing letters and digits ("r2", "o200k"), which users also type as one word.
 */
export interface WordChunk {
  readonly parts: readonly string[];
  readonly whole: string | undefined;
}

/**
 * Splits text into lowercase word chunks: camelCase, PascalCase, snake_case, kebab-case, dotted
 * names and letter/digit boundaries all break words (`getHTTPResponse2xx` → get, http, response,
 * 2, xx).
 */
export function splitChunks(text: string): WordChunk[] {
  const chunks: WordChunk[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) chunks.push(splitChunk(match[0]));
  return chunks;
}

/** Splits one run of letters and digits (see `splitChunks`). */
export function splitChunk(chunk: string): WordChunk {
  // Most words of prose are plain lowercase: nothing to split.
  if (/^[a-z]+$/.test(chunk)) return { parts: [chunk], whole: undefined };
  const parts = chunk
    // lower or digit followed by upper: fooBar, v2Api
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    // an acronym before a capitalised word: HTTPServer → HTTP Server
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    // letters and digits: v2 → v 2, 365days → 365 days
    .replace(/(\p{L})(\p{N})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .toLowerCase()
    .split(" ")
    .filter(Boolean);
  const productLike = /^\p{Lu}/u.test(chunk) || (/\p{N}/u.test(chunk) && /\p{L}/u.test(chunk));
  const whole = parts.length > 1 && productLike && chunk.length <= 16 ? chunk.toLowerCase() : undefined;
  return { parts, whole };
}

/** Every word of a text for indexing: the parts of each chunk, then its whole form when it has one. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const { parts, whole } of splitChunks(text)) {
    words.push(...parts);
    if (whole !== undefined) words.push(whole);
  }
  return words;
}
