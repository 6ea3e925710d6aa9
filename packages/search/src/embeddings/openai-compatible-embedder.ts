import { ThinktankError } from "@thinktank/core";
import type { Embedder } from "./embedder.js";

export interface OpenAiCompatibleEmbedderOptions {
  /** Base URL of the API; `/embeddings` is appended. @default "https://api.openai.com/v1" */
  readonly baseUrl?: string;
  /** The embedding model, e.g. "text-embedding-3-small". */
  readonly model: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  readonly apiKey?: string;
  /** Milliseconds before a request is abandoned. @default 10000 */
  readonly timeoutMs?: number;
  /** Texts per request. @default 64 */
  readonly batchSize?: number;
  /** The fetch to use (tests pass their own). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** An `Embedder` over any OpenAI-compatible `POST /embeddings` endpoint (OpenAI, vLLM, Ollama, LM Studio, ...). */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly #url: string;
  readonly #options: OpenAiCompatibleEmbedderOptions;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAiCompatibleEmbedderOptions) {
    if (!options.model) throw new ThinktankError("CONFIG_INVALID", "an embeddings model is required");
    this.#options = options;
    this.#url = `${(options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/embeddings`;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const batchSize = this.#options.batchSize ?? 64;
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      vectors.push(...(await this.#embedBatch(texts.slice(start, start + batchSize))));
    }
    return vectors;
  }

  async #embedBatch(input: readonly string[]): Promise<number[][]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.#options.model, input }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new ThinktankError("SERVICE_UNAVAILABLE", `embeddings request to ${this.#url} failed: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => "")).slice(0, 200);
      throw new ThinktankError("SERVICE_UNAVAILABLE", `embeddings endpoint ${this.#url} answered ${response.status}${body ? `: ${body}` : ""}`);
    }
    const payload = (await response.json().catch(() => undefined)) as { data?: { embedding?: unknown; index?: unknown }[] } | undefined;
    const data = payload?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new ThinktankError("SERVICE_UNAVAILABLE", `embeddings endpoint ${this.#url} answered ${Array.isArray(data) ? data.length : "no"} vectors for ${input.length} texts`);
    }
    const vectors: number[][] = new Array(input.length);
    data.forEach((item, position) => {
      const index = typeof item.index === "number" ? item.index : position;
      if (!Array.isArray(item.embedding) || !item.embedding.every((x) => typeof x === "number") || index < 0 || index >= input.length) {
        throw new ThinktankError("SERVICE_UNAVAILABLE", `embeddings endpoint ${this.#url} answered a malformed vector`);
      }
      vectors[index] = item.embedding as number[];
    });
    return vectors;
  }
}
