import { isThinktankError } from "@thinktank/core";
import type { InvokeOptions } from "../../execution/tool-executor.js";
import type { ExecutionLog } from "../../log/execution-log.js";
import { recordCall } from "../../log/record-call.js";
import { SchemaCompiler } from "../../registry/schema-compiler.js";
import { toolFailure, toolSuccess } from "../../tool-response.js";
import type { ToolResponse } from "../../tool-response.js";
import type { WebSearchProvider } from "./web-search-types.js";

/** Most results one call may ask for. */
export const maxWebSearchResults = 20;

export interface WebSearchOptions {
  /** The backend; undefined when none is configured (the tool is then not offered, and calls answer NOT_CONFIGURED). */
  readonly provider: WebSearchProvider | undefined;
  /** Why there is no provider, for NOT_CONFIGURED answers. @default "web_search is not configured" */
  readonly notConfiguredReason?: string;
  /** config.web_search.timeout_ms. @default 10000 */
  readonly timeoutMs?: number;
  /** config.web_search.max_results: results when the call names no number. @default 5 */
  readonly defaultResults?: number;
  /** Where every call is recorded. @default not recorded */
  readonly log?: ExecutionLog;
  /** @default new SchemaCompiler() */
  readonly compiler?: SchemaCompiler;
  /** @default () => new Date() */
  readonly clock?: () => Date;
}

/**
 * The web_search built-in: one query to the configured provider (Tavily, Brave or SearXNG),
 * answered as a ToolResponse `{ query, provider, results: [{ title, url, snippet, published_at? }] }`.
 * Never throws; provider failures are WEB_SEARCH_FAILED, TIMEOUT or CANCELLED answers.
 */
export class WebSearch {
  readonly name = "web_search";
  readonly description =
    "Search the web and get the top results (title, URL, snippet). Use it for current events, recent releases, prices, weather and other facts that change or that you do not know; answer general knowledge you are sure of directly, without searching.";
  readonly inputSchema = {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: 400, description: "What to search for, as you would type it into a search engine." },
      max_results: { type: "integer", minimum: 1, maximum: maxWebSearchResults, description: "How many results (default from the server's configuration)." },
    },
    required: ["query"],
    additionalProperties: false,
  } as const;
  private readonly compiler: SchemaCompiler;
  private readonly clock: () => Date;

  constructor(private readonly options: WebSearchOptions) {
    this.compiler = options.compiler ?? new SchemaCompiler();
    this.clock = options.clock ?? (() => new Date());
  }

  /** Whether a provider is configured (only then is the tool offered to the model). */
  get available(): boolean {
    return this.options.provider !== undefined;
  }

  /** Why the tool is not available; undefined when it is. */
  get unavailableReason(): string | undefined {
    return this.available ? undefined : (this.options.notConfiguredReason ?? "web_search is not configured");
  }

  async search(args: unknown, options: InvokeOptions = {}): Promise<ToolResponse> {
    const started = this.clock();
    const startedMs = performance.now();
    const response = await this.perform(args, options.signal);
    await recordCall(this.options.log, this.name, args, { at: started, ms: startedMs }, response, options);
    return response;
  }

  private async perform(args: unknown, signal: AbortSignal | undefined): Promise<ToolResponse> {
    const provider = this.options.provider;
    if (!provider) return toolFailure("NOT_CONFIGURED", `${this.unavailableReason}: set web_search.provider (tavily, brave or searxng) in config.yaml`);
    const problems = this.compiler.validate(this.inputSchema, args, "arguments");
    if (problems.length > 0) {
      return toolFailure("TOOL_INVALID_ARGUMENTS", `the arguments of web_search are not valid: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`, { problems });
    }
    const { query, max_results: maxResults } = args as { query: string; max_results?: number };
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
    try {
      const results = await provider.search({
        query,
        maxResults: Math.min(maxResults ?? this.options.defaultResults ?? 5, maxWebSearchResults),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      return toolSuccess({ query, provider: provider.name, results });
    } catch (error) {
      if (isThinktankError(error)) return toolFailure(error.code, error.message);
      return toolFailure("WEB_SEARCH_FAILED", `${provider.name}: ${(error as Error).message}`);
    }
  }
}
