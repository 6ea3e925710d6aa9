/**
 * Splits a raw name into ASCII words: separators are any non-alphanumeric run, and camelCase or
 * acronym boundaries ("getHTMLPage" → get, HTML, Page). Characters outside ASCII are dropped,
 * so the result is the same on every machine and every locale.
 */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
}
