import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@thinktank/core";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogServer } from "../../catalog/catalog-types.js";
import { ToolSearchIndex } from "../tool-search-index.js";
import { embedderFromConfig } from "./embedder-from-config.js";
import { OpenAiCompatibleEmbedder } from "./openai-compatible-embedder.js";
import { SemanticReranker } from "./semantic-reranker.js";

// A stand-in for an embeddings model: each text becomes a vector over a few "meanings", each
// recognised by several words, so texts that share a meaning but no words still come out close.
const meanings = [
  ["distance", "drive", "far", "travel", "how long", "kilometres", "route"],
  ["weather", "rain", "forecast", "temperature", "sunny"],
  ["email", "mail", "inbox", "message"],
  ["money", "payment", "invoice", "refund", "price"],
];
function fakeEmbedding(text: string): number[] {
  const lower = text.toLowerCase();
  return meanings.map((words) => words.filter((word) => lower.includes(word)).length);
}

const object = { type: "object", properties: {} };
const maps: CatalogServer = {
  server: "maps",
  tools: [
    { name: "distance_matrix", description: "Calculate travel distance and time between origins and destinations.", inputSchema: object },
    { name: "geocode", description: "Convert an address into coordinates from Berlin or anywhere.", inputSchema: object },
    { name: "city_weather", description: "Get the weather forecast for a city such as Berlin or Hamburg.", inputSchema: object },
  ],
};

let server: http.Server;
let baseUrl: string;
let requests: { model?: string; input?: string[]; authorization?: string }[] = [];
let failNext = false;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const parsed = JSON.parse(body) as { model?: string; input?: string[] };
      requests.push({ ...parsed, ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
      if (request.url !== "/v1/embeddings" || failNext) {
        failNext = false;
        response.writeHead(request.url === "/v1/embeddings" ? 500 : 404, { "content-type": "application/json" }).end('{"error":"boom"}');
        return;
      }
      // Answer in reverse order with explicit indexes, as some providers do.
      const data = (parsed.input ?? []).map((text, index) => ({ index, embedding: fakeEmbedding(text) })).reverse();
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("OpenAiCompatibleEmbedder", () => {
  it("posts the model and texts, sends the key, and orders vectors by index", async () => {
    requests = [];
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: "fake-embed", apiKey: "k-123", batchSize: 2 });
    const vectors = await embedder.embed(["drive far", "rain", "refund"]);
    expect(vectors).toEqual([fakeEmbedding("drive far"), fakeEmbedding("rain"), fakeEmbedding("refund")]);
    expect(requests).toEqual([
      { model: "fake-embed", input: ["drive far", "rain"], authorization: "Bearer k-123" },
      { model: "fake-embed", input: ["refund"], authorization: "Bearer k-123" },
    ]);
  });

  it("fails with SERVICE_UNAVAILABLE naming the endpoint and status, or an unreachable port", async () => {
    await expect(new OpenAiCompatibleEmbedder({ baseUrl: `${baseUrl}/nowhere`, model: "m" }).embed(["x"])).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringContaining("answered 404"),
    });
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    await expect(new OpenAiCompatibleEmbedder({ baseUrl: closed, model: "m", timeoutMs: 2000 }).embed(["x"])).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });
});

describe("SemanticReranker", () => {
  const index = new ToolSearchIndex();
  index.syncServers([maps]);

  it("lifts the tool whose meaning fits above the keyword winner", async () => {
    const query = "how long is the drive from Berlin to Hamburg";
    expect(index.search(query)[0]?.name).toBe("city_weather");
    const reranker = new SemanticReranker({ embedder: new OpenAiCompatibleEmbedder({ baseUrl, model: "fake" }), weight: 0.7 });
    const outcome = await reranker.search(index, query, { limit: 2 });
    expect(outcome.semantic).toBe("applied");
    expect(outcome.results.map((r) => r.name)).toEqual(["distance_matrix", "city_weather"]);
  });

  it("embeds each tool once and keeps the keyword order when the provider fails", async () => {
    const reranker = new SemanticReranker({ embedder: new OpenAiCompatibleEmbedder({ baseUrl, model: "fake" }) });
    await reranker.search(index, "drive Berlin Hamburg");
    requests = [];
    await reranker.search(index, "far from Berlin");
    expect(requests[0]?.input).toEqual(["far from Berlin"]);
    failNext = true;
    const outcome = await reranker.search(index, "weather in Berlin", { limit: 3 });
    expect(outcome).toMatchObject({ semantic: "failed", error: expect.stringContaining("answered 500") });
    expect(outcome.results).toEqual(index.search("weather in Berlin", { limit: 3 }));
  });
});

describe("embedderFromConfig", () => {
  const config = (embeddings: Record<string, unknown>, env: Record<string, string> = {}) => ({ ...loadConfig({ cwd: "/nonexistent", env: {} }), env, search: { default_limit: 10, max_limit: 50, embeddings } }) as never;

  it("is off by default and builds an embedder for a configured provider", async () => {
    expect(embedderFromConfig(loadConfig({ cwd: "/nonexistent", env: {} }))).toBeUndefined();
    const embedder = embedderFromConfig(config({ provider: "openai-compatible", model: "fake", base_url: baseUrl, api_key_env: "EMBED_KEY" }, { EMBED_KEY: "s3" }));
    requests = [];
    await embedder?.embed(["mail"]);
    expect(requests[0]).toMatchObject({ model: "fake", authorization: "Bearer s3" });
  });

  it("says what is missing", () => {
    expect(() => embedderFromConfig(config({ provider: "openai" }))).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => embedderFromConfig(config({ provider: "openai-compatible", model: "m" }))).toThrowError(/base_url is required/);
    expect(() => embedderFromConfig(config({ provider: "openai", model: "m" }))).toThrowError(expect.objectContaining({ code: "NOT_CONFIGURED", message: expect.stringContaining("OPENAI_API_KEY") }));
  });
});
