import { fetchJson } from "./fetch-json.js";
import { readResults } from "./read-results.js";
import type { FetchFunction, WebSearchProvider, WebSearchRequest, WebSearchResult } from "./web-search-types.js";

/** Where Tavily's API lives (web_search.url overrides it, for a proxy or a test). */
export const tavilyBaseUrl = "https://api.tavily.com";

/** Tavily: `POST <base>/search` with `{ query, max_results }` and the key as a Bearer token. */
export class TavilyProvider implements WebSearchProvider {
  readonly name = "tavily";

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string = tavilyBaseUrl,
    private readonly fetchFunction: FetchFunction = fetch,
  ) {}

  async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
    const body = await fetchJson(this.fetchFunction, this.name, `${this.baseUrl.replace(/\/+$/, "")}/search`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify({ query: request.query, max_results: request.maxResults, search_depth: "basic" }),
      signal: request.signal,
    });
    return readResults(this.name, (body as { results?: unknown } | null)?.results, { title: "title", url: "url", snippet: "content", published: ["published_date"] }, request.maxResults);
  }
}
