import { loadConfig } from "@thinktank/core";
import { freePort, startEmbeddingsServer, type EmbeddingsServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedderFromConfig } from "./embedder-from-config.js";
import { OpenAiCompatibleEmbedder } from "./openai-compatible-embedder.js";
import { SemanticStage } from "./semantic-stage.js";

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

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer(fakeEmbedding);
});
afterAll(async () => {
  await server.close();
});

describe("OpenAiCompatibleEmbedder", () => {
  it("posts the model and texts, sends the key, and orders vectors by index", async () => {
    server.requests.length = 0;
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "fake-embed", apiKey: "k-123", batchSize: 2 });
    const vectors = await embedder.embed(["drive far", "rain", "refund"]);
    expect(vectors).toEqual([fakeEmbedding("drive far"), fakeEmbedding("rain"), fakeEmbedding("refund")]);
    expect(server.requests).toEqual([
      { model: "fake-embed", input: ["drive far", "rain"], authorization: "Bearer k-123" },
      { model: "fake-embed", input: ["refund"], authorization: "Bearer k-123" },
    ]);
  });

  it("fails with SERVICE_UNAVAILABLE naming the endpoint and status, or an unreachable port", async () => {
    await expect(new OpenAiCompatibleEmbedder({ baseUrl: `${server.baseUrl}/nowhere`, model: "m" }).embed(["x"])).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringContaining("answered 404"),
    });
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    await expect(new OpenAiCompatibleEmbedder({ baseUrl: closed, model: "m", timeoutMs: 2000 }).embed(["x"])).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });
});

describe("SemanticStage", () => {
  const documents = [
    { key: "distance", text: "Calculate travel distance and time between places." },
    { key: "weather", text: "Get the weather forecast for a city such as Berlin." },
    { key: "refund", text: "Refund a payment." },
  ];

  it("blends keyword and meaning: a document found by meaning alone can win, ties go by key", async () => {
    const stage = new SemanticStage({ embedder: new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "fake" }), weight: 0.7 });
    const ranked = await stage.rank("how long is the drive from Berlin", [{ key: "weather", score: 3 }], documents, 2);
    expect(ranked.map((r) => r.key)).toEqual(["distance", "weather"]);
    expect(ranked[0]?.score).toBeCloseTo(0.7);
    expect(ranked[1]?.score).toBeCloseTo(0.3);
  });

  it("embeds each document once, again when its text changes, and rejects when the provider fails", async () => {
    const stage = new SemanticStage({ embedder: new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "fake" }) });
    await stage.rank("far", [], documents, 3);
    server.requests.length = 0;
    await stage.rank("rain", [], [...documents.slice(0, 2), { key: "refund", text: "Refund an invoice." }], 3);
    expect(server.requests[0]?.input).toEqual(["rain", "Refund an invoice."]);
    server.failNext();
    await expect(stage.rank("rain", [], documents, 3)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("answered 500") });
  });
});

describe("embedderFromConfig", () => {
  const config = (embeddings: Record<string, unknown>, env: Record<string, string> = {}) => ({ ...loadConfig({ cwd: "/nonexistent", env: {} }), env, search: { default_limit: 10, max_limit: 50, embeddings } }) as never;

  it("is off by default and builds an embedder for a configured provider", async () => {
    expect(embedderFromConfig(loadConfig({ cwd: "/nonexistent", env: {} }))).toBeUndefined();
    const embedder = embedderFromConfig(config({ provider: "openai-compatible", model: "fake", base_url: server.baseUrl, api_key_env: "EMBED_KEY" }, { EMBED_KEY: "s3" }));
    server.requests.length = 0;
    await embedder?.embed(["mail"]);
    expect(server.requests[0]).toMatchObject({ model: "fake", authorization: "Bearer s3" });
  });

  it("says what is missing", () => {
    expect(() => embedderFromConfig(config({ provider: "openai" }))).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => embedderFromConfig(config({ provider: "openai-compatible", model: "m" }))).toThrowError(/base_url is required/);
    expect(() => embedderFromConfig(config({ provider: "openai", model: "m" }))).toThrowError(expect.objectContaining({ code: "NOT_CONFIGURED", message: expect.stringContaining("OPENAI_API_KEY") }));
  });
});
