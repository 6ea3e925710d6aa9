import { maskUrlSecrets, ThinktankError } from "@thinktank/core";
import type { FetchFunction } from "./web-search-types.js";

/**
 * One HTTP request to a search service, answering its JSON body. Failures become ThinktankErrors
 * naming the provider: WEB_SEARCH_FAILED for an HTTP error status (with the start of the body),
 * a body that is not JSON, or a network failure; TIMEOUT when `signal` timed out.
 */
export async function fetchJson(fetchFunction: FetchFunction, provider: string, url: string, init: RequestInit & { signal: AbortSignal }): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFunction(url, init);
  } catch (error) {
    throw failure(provider, url, error, init.signal);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw failure(provider, url, error, init.signal);
  }
  if (!response.ok) {
    const excerpt = text.replace(/\s+/g, " ").trim().slice(0, 200);
    throw new ThinktankError("WEB_SEARCH_FAILED", `${provider} answered HTTP ${response.status}${excerpt ? `: ${excerpt}` : ""}`, { details: { provider, status: response.status } });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ThinktankError("WEB_SEARCH_FAILED", `${provider} answered with something that is not JSON (${text.slice(0, 80).replace(/\s+/g, " ")}...)`, { details: { provider } });
  }
}

function failure(provider: string, url: string, error: unknown, signal: AbortSignal): ThinktankError {
  if (signal.aborted && (signal.reason as { name?: string } | undefined)?.name === "TimeoutError") {
    return new ThinktankError("TIMEOUT", `${provider} did not answer in time`, { cause: error, details: { provider } });
  }
  if (signal.aborted) return new ThinktankError("CANCELLED", `the ${provider} search was cancelled`, { cause: error, details: { provider } });
  const reason = (error as { cause?: { code?: string; message?: string } }).cause?.code ?? (error as Error).message;
  return new ThinktankError("WEB_SEARCH_FAILED", `could not reach ${provider} at ${maskUrlSecrets(url)} (${reason})`, { cause: error, details: { provider } });
}
