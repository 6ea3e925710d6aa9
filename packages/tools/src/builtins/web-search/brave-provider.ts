import { fetchJson } from "./fetch-json.js";
import { readResults } from "./read-results.js";
import type { FetchFunction, WebSearchProvider, WebSearchRequest, WebSearchResult } from "./web-search-types.js";

/** Where Brave's Search API lives (web_search.url overrides it, for a proxy or a test). */
export const braveBaseUrl = "https://api.search.brave.com";

/** Brave Search: `GET <base>/res/v1/web/search?q=...&count=N` with the key in `X-Subscription-Token`. */
export class BraveProvider implements WebSearchProvider {
  readonly name = "brave";

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string = braveBaseUrl,
    private readonly fetchFunction: FetchFunction = fetch,
  ) {}

  async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
    const endpoint = new URL(`${this.baseUrl.replace(/\/+$/, "")}/res/v1/web/search`);
    endpoint.searchParams.set("q", request.query);
    endpoint.searchParams.set("count", String(Math.min(request.maxResults, 20)));
    const body = await fetchJson(this.fetchFunction, this.name, endpoint.toString(), {
      headers: { accept: "application/json", "x-subscription-token": this.apiKey },
      signal: request.signal,
    });
    const web = (body as { web?: { results?: unknown } } | null)?.web;
    return readResults(this.name, web?.results ?? [], { title: "title", url: "url", snippet: "description", published: ["page_age", "age"] }, request.maxResults);
  }
}
