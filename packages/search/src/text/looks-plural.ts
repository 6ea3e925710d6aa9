/**
 * Whether a word is most likely a plural noun ("tables", "policies"), not "status", "analysis" or
 * "process". The analyzer folds "tables" into "tabl", so callers ask this of the word itself.
 */
export function looksPlural(word: string): boolean {
  return word.length > 3 && /[^su]s$/.test(word) && !/(?:is|ics|news)$/.test(word);
}
