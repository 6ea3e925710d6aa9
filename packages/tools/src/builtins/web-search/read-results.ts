import { ThinktankError } from "@thinktank/core";
import type { WebSearchResult } from "./web-search-types.js";

const maxSnippetChars = 600;

/**
 * Maps a provider's list of hits to WebSearchResults: picks the named fields, strips HTML tags
 * from the text, drops hits without an http(s) URL, caps the count. WEB_SEARCH_FAILED when `list`
 * is not a list (the provider answered another shape).
 */
export function readResults(
  provider: string,
  list: unknown,
  fields: { readonly title: string; readonly url: string; readonly snippet: string; readonly published?: readonly string[] },
  maxResults: number,
): WebSearchResult[] {
  if (!Array.isArray(list)) throw new ThinktankError("WEB_SEARCH_FAILED", `${provider} answered JSON without a list of results`, { details: { provider } });
  const results: WebSearchResult[] = [];
  for (const item of list) {
    if (results.length >= maxResults) break;
    if (!item || typeof item !== "object") continue;
    const record = item as Record<string, unknown>;
    const url = record[fields.url];
    if (typeof url !== "string" || !/^https?:\/\//i.test(url)) continue;
    const published = (fields.published ?? []).map((key) => record[key]).find((value): value is string => typeof value === "string" && value !== "");
    results.push({
      title: plain(record[fields.title]) || url,
      url,
      snippet: plain(record[fields.snippet]).slice(0, maxSnippetChars),
      ...(published ? { published_at: published } : {}),
    });
  }
  return results;
}

function plain(value: unknown): string {
  if (typeof value !== "string") return "";
  return value
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (_whole, entity: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[entity] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}
