const abbreviations = /(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|no|min|max)|\b[A-Z])$/i;

/**
 * Splits a description into its first sentence (what the tool does, usually) and the rest
 * (usage notes, examples, caveats). A sentence ends at `.`, `!` or `?` followed by a space, or
 * at a line break; "e.g." and similar abbreviations do not end it.
 */
export function splitDescription(description: string): { lead: string; body: string } {
  const text = description.trim();
  const boundary = /[.!?](?=\s)|\n/g;
  for (const match of text.matchAll(boundary)) {
    const end = (match.index ?? 0) + 1;
    if (end < 12) continue;
    if (match[0] !== "\n" && abbreviations.test(text.slice(0, end - 1))) continue;
    return { lead: text.slice(0, end).trim(), body: text.slice(end).trim() };
  }
  return { lead: text, body: "" };
}

/** The first sentence of a description, whitespace collapsed, at most `maxChars` characters (cut on a word with "…"). */
export function summarizeDescription(description: string, maxChars = 200): string {
  const lead = splitDescription(description).lead.replace(/\s+/g, " ").trim();
  if (lead.length <= maxChars) return lead;
  const cut = lead.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
