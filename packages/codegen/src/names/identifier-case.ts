import { identifierWords } from "./identifier-words.js";

/** The casings the generated code uses. Each is deterministic and ASCII-only; an empty result takes `fallback`. */
export const identifierCase = {
  /** `search_repositories` → `searchRepositories` (each word lower-cased, then capitalised: `getURL` → `getUrl`). */
  camel(name: string, fallback: string): string {
    const words = identifierWords(name).map((word) => word.toLowerCase());
    if (words.length === 0) return fallback;
    return leadingDigit(words[0] + words.slice(1).map(capitalize).join(""));
  },

  /** `search_repositories` → `SearchRepositories`. */
  pascal(name: string, fallback: string): string {
    const words = identifierWords(name).map((word) => capitalize(word.toLowerCase()));
    return words.length === 0 ? fallback : leadingDigit(words.join(""));
  },

  /** `searchRepositories` → `search_repositories`. */
  snake(name: string, fallback: string): string {
    const words = identifierWords(name).map((word) => word.toLowerCase());
    return words.length === 0 ? fallback : leadingDigit(words.join("_"));
  },

  /**
   * A folder name: lower-cased, every run of other characters one `-` (`sales:slack` → `sales-slack`,
   * `GitHub` → `github`). Words are not split at capitals, so the folder reads like the server name.
   */
  folder(name: string, fallback: string): string {
    const folder = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    return folder === "" ? fallback : folder;
  },

  /** A Python package name: the folder name with `_` for `-`, and a leading `_` before a digit. */
  pythonPackage(name: string, fallback: string): string {
    const folder = identifierCase.folder(name, fallback).replace(/-/g, "_");
    return leadingDigit(folder);
  },
} as const;

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Identifiers cannot start with a digit in either language: `2fa_verify` → `_2fa_verify`. */
function leadingDigit(identifier: string): string {
  return /^[0-9]/.test(identifier) ? `_${identifier}` : identifier;
}
