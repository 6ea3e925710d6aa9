import { OpenAiCompatibleEmbedder } from "@thinktank/search";
import { startEmbeddingsServer, type EmbeddingsServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogServer } from "../../catalog/catalog-types.js";
import { ToolSearchIndex } from "../tool-search-index.js";
import { SemanticReranker } from "./semantic-reranker.js";

// A stand-in for an embeddings model: each text becomes a vector over a few "meanings", each
// recognised by several words, so texts that share a meaning but no words still come out close.
const meanings = [
  ["distance", "drive", "far", "travel", "how long", "kilometres", "route"],
  ["weather", "rain", "forecast", "temperature", "sunny"],
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

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer(fakeEmbedding);
});
afterAll(async () => {
  await server.close();
});

describe("SemanticReranker", () => {
  const index = new ToolSearchIndex();
  index.syncServers([maps]);

  it("lifts the tool whose meaning fits above the keyword winner", async () => {
    const query = "how long is the drive from Berlin to Hamburg";
    expect(index.search(query)[0]?.name).toBe("city_weather");
    const reranker = new SemanticReranker({ embedder: new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "fake" }), weight: 0.7 });
    const outcome = await reranker.search(index, query, { limit: 2 });
    expect(outcome.semantic).toBe("applied");
    expect(outcome.results.map((r) => r.name)).toEqual(["distance_matrix", "city_weather"]);
  });

  it("embeds each tool once and keeps the keyword order when the provider fails", async () => {
    const reranker = new SemanticReranker({ embedder: new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "fake" }) });
    await reranker.search(index, "drive Berlin Hamburg");
    server.requests.length = 0;
    await reranker.search(index, "far from Berlin");
    expect(server.requests[0]?.input).toEqual(["far from Berlin"]);
    server.failNext();
    const outcome = await reranker.search(index, "weather in Berlin", { limit: 3 });
    expect(outcome).toMatchObject({ semantic: "failed", error: expect.stringContaining("answered 500") });
    expect(outcome.results).toEqual(index.search("weather in Berlin", { limit: 3 }));
  });
});
