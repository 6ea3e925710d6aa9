/** One search hit, the same shape whatever the provider. */
export interface WebSearchResult {
  readonly title: string;
  readonly url: string;
  /** A short extract of the page (plain text). */
  readonly snippet: string;
  /** When the page was published, as the provider gives it. */
  readonly published_at?: string;
}

export interface WebSearchRequest {
  readonly query: string;
  readonly maxResults: number;
  readonly signal: AbortSignal;
}

/** The fetch function providers call (the global one, or a test's). */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * A search backend. `search` throws a ThinktankError: WEB_SEARCH_FAILED (HTTP error, a body
 * that is not JSON or not the expected shape, the service unreachable) or TIMEOUT.
 */
export interface WebSearchProvider {
  readonly name: string;
  search(request: WebSearchRequest): Promise<WebSearchResult[]>;
}
