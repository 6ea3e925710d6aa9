/**
 * Splits a raw name into the ASCII words of a generated identifier: separators are any
 * non-alphanumeric run, and camelCase or acronym boundaries ("getHTMLPage" → get, HTML, Page).
 * Characters outside ASCII are dropped, so the result is the same on every machine and every locale.
 *
 * Not the search package's `splitWords`, on purpose: that one indexes text for ranking (Unicode
 * letters kept, everything lower-cased, letters split from digits, product names also kept whole:
 * "GitHub" → git, hub, github). Here the words become TypeScript and Python identifiers, which must
 * be ASCII, keep a word's case for acronyms, keep "v2" one word and never repeat a word, or the
 * generated code API's names would change.
 */
export function identifierWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
}
