import { fetchJson } from "./fetch-json.js";
import { readResults } from "./read-results.js";
import type { FetchFunction, WebSearchProvider, WebSearchRequest, WebSearchResult } from "./web-search-types.js";

/**
 * A SearXNG instance's JSON API: `GET <url>/search?q=...&format=json` (the instance must allow the
 * json format in its settings). `url` is the instance's base URL, or its /search URL.
 */
export class SearxngProvider implements WebSearchProvider {
  readonly name = "searxng";

  constructor(
    private readonly url: string,
    private readonly fetchFunction: FetchFunction = fetch,
  ) {}

  async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
    const endpoint = new URL(this.url);
    if (!endpoint.pathname.replace(/\/+$/, "").endsWith("/search")) endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/search`;
    endpoint.searchParams.set("q", request.query);
    endpoint.searchParams.set("format", "json");
    const body = await fetchJson(this.fetchFunction, this.name, endpoint.toString(), { headers: { accept: "application/json" }, signal: request.signal });
    return readResults(this.name, (body as { results?: unknown } | null)?.results, { title: "title", url: "url", snippet: "content", published: ["publishedDate"] }, request.maxResults);
  }
}
