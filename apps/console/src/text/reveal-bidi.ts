// Bidirectional and invisible formatting characters can make text read differently from what it is
// (a name that shows "exe.txt" but is "txt.exe"). Untrusted text shows them as visible escapes.

// LRM, RLM, ALM, the embeddings and overrides (U+202A-U+202E), the isolates (U+2066-U+2069),
// zero-width space/joiners and the BOM.
const controls = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;

/** The text with each bidi or invisible control character replaced by its `\uXXXX` escape. */
export function revealBidi(text: string): string {
  return text.replace(controls, (character) => `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}
