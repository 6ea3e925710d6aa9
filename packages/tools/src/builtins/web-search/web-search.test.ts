import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionLog } from "../../log/execution-log.js";
import type { ToolResponse } from "../../tool-response.js";
import { createWebSearch } from "./create-web-search.js";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local stand-in for SearXNG, Tavily and Brave: answers by path and query; records every request. */
function startStub(): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const url = new URL(request.url ?? "/", "http://stub");
      const query = url.searchParams.get("q") ?? (body ? (JSON.parse(body) as { query?: string }).query : "");
      const json = (status: number, value: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      if (query === "boom") return json(500, { error: "engine exploded" });
      if (query === "garbage") return response.writeHead(200, { "content-type": "application/json" }).end("<html>not json</html>");
      if (query === "shape") return json(200, { results: "not a list" });
      // Not a wait for anything: a service slower than web_search.timeout_ms (the input of the TIMEOUT test).
      if (query === "slow") return void setTimeout(() => json(200, { results: [] }), 3000);
      if (url.pathname === "/search" && request.method === "GET") {
        return json(200, {
          query,
          results: [
            { title: "TypeScript <b>5.9</b> released", url: "https://devblogs.example/ts-59", content: "Today we are   excited &amp; proud…", publishedDate: "2026-04-01", engine: "x" },
            { title: "no url", content: "dropped" },
            { title: "ftp", url: "ftp://files.example/x", content: "dropped too" },
            { title: "Second", url: "https://example.org/2", content: "two" },
            { title: "Third", url: "https://example.org/3", content: "three" },
          ],
        });
      }
      if (url.pathname === "/search" && request.method === "POST") {
        return json(200, { query, results: [{ title: "Tavily hit", url: "https://t.example/1", content: "from tavily", score: 0.9, published_date: "2026-05-01" }] });
      }
      if (url.pathname === "/res/v1/web/search") {
        return json(200, { type: "search", web: { results: [{ title: "Brave <strong>hit</strong>", url: "https://b.example/1", description: "from <strong>brave</strong>", page_age: "2026-05-02T00:00:00" }] } });
      }
      return json(404, { error: "no such route" });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

let stub: Awaited<ReturnType<typeof startStub>>;
const temp = makeTempDir("tt-websearch-");
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
  temp.cleanup();
});

function webSearchFor(yaml: string, env: Record<string, string> = {}, log?: ExecutionLog) {
  const dir = `${temp.dir}/${Math.random().toString(16).slice(2)}`;
  writeTree(dir, { "config.yaml": yaml });
  return createWebSearch(loadConfig({ cwd: dir, env }), log ? { log } : {});
}

function dataOf(response: ToolResponse): { query: string; provider: string; results: Record<string, unknown>[] } {
  if (response.status !== "success") throw new Error(JSON.stringify(response));
  return response.data as { query: string; provider: string; results: Record<string, unknown>[] };
}

function codeOf(response: ToolResponse): string {
  return response.status === "error" ? response.error.code : "success";
}

describe("web_search over a SearXNG-compatible endpoint", () => {
  it("maps results: plain text, only http(s) links, capped at max_results", async () => {
    const search = webSearchFor(`web_search:\n  provider: searxng\n  url: ${stub.url}\n  max_results: 2\n`);
    expect(search.available).toBe(true);
    const data = dataOf(await search.search({ query: "typescript release" }));
    expect(data).toEqual({
      query: "typescript release",
      provider: "searxng",
      results: [
        { title: "TypeScript 5.9 released", url: "https://devblogs.example/ts-59", snippet: "Today we are excited & proud…", published_at: "2026-04-01" },
        { title: "Second", url: "https://example.org/2", snippet: "two" },
      ],
    });
    expect(dataOf(await search.search({ query: "typescript release", max_results: 10 })).results).toHaveLength(3);
    const request = stub.seen.at(-1) as Seen;
    expect(request.method).toBe("GET");
    expect(new URL(request.url, "http://x").searchParams.get("format")).toBe("json");
  });

  it("answers WEB_SEARCH_FAILED for an HTTP error, a body that is not JSON or not a list, and an unreachable service", async () => {
    const search = webSearchFor(`web_search:\n  provider: searxng\n  url: ${stub.url}/search\n`);
    const failed = await search.search({ query: "boom" });
    expect(failed).toMatchObject({ status: "error", error: { code: "WEB_SEARCH_FAILED", message: expect.stringMatching(/searxng answered HTTP 500: .*engine exploded/) } });
    expect(codeOf(await search.search({ query: "garbage" }))).toBe("WEB_SEARCH_FAILED");
    expect(codeOf(await search.search({ query: "shape" }))).toBe("WEB_SEARCH_FAILED");
    const closed = webSearchFor("web_search:\n  provider: searxng\n  url: http://127.0.0.1:1\n");
    expect(await closed.search({ query: "x" })).toMatchObject({ status: "error", error: { code: "WEB_SEARCH_FAILED", message: expect.stringMatching(/could not reach searxng/) } });
  });

  it("answers TIMEOUT when the service is slower than web_search.timeout_ms", async () => {
    const search = webSearchFor(`web_search:\n  provider: searxng\n  url: ${stub.url}\n  timeout_ms: 300\n`);
    const started = Date.now();
    expect(await search.search({ query: "slow" })).toMatchObject({ status: "error", error: { code: "TIMEOUT" } });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("checks its arguments, and logs every call", async () => {
    const log = new ExecutionLog({ dir: `${temp.dir}/log` });
    const search = webSearchFor(`web_search:\n  provider: searxng\n  url: ${stub.url}\n`, {}, log);
    for (const args of [{}, { query: "" }, { query: "x", max_results: 0 }, { query: "x", extra: 1 }]) expect(codeOf(await search.search(args))).toBe("TOOL_INVALID_ARGUMENTS");
    await search.search({ query: "logged" });
    const [latest] = await log.recent({ tool: "web_search" });
    expect(latest).toMatchObject({ tool: "web_search", status: "success", arguments: { query: "logged" } });
    expect(await log.recent({ tool: "web_search", limit: 50 })).toHaveLength(5);
  });
});

describe("web_search providers and configuration", () => {
  it("sends Tavily's request shape: POST /search, Bearer key, query and max_results in the body", async () => {
    const search = webSearchFor(`web_search:\n  provider: tavily\n  url: ${stub.url}\n  api_key_env: MY_TAVILY\n`, { MY_TAVILY: "tvly-test-key" });
    const data = dataOf(await search.search({ query: "news today", max_results: 3 }));
    expect(data.results).toEqual([{ title: "Tavily hit", url: "https://t.example/1", snippet: "from tavily", published_at: "2026-05-01" }]);
    const request = stub.seen.at(-1) as Seen;
    expect(request).toMatchObject({ method: "POST", url: "/search" });
    expect(request.headers.authorization).toBe("Bearer tvly-test-key");
    expect(JSON.parse(request.body)).toMatchObject({ query: "news today", max_results: 3 });
  });

  it("sends Brave's request shape: GET /res/v1/web/search?q=&count=, key in X-Subscription-Token", async () => {
    const search = webSearchFor(`web_search:\n  provider: brave\n  url: ${stub.url}\n`, { BRAVE_API_KEY: "brave-test-key" });
    const data = dataOf(await search.search({ query: "seoul weather", max_results: 4 }));
    expect(data.results).toEqual([{ title: "Brave hit", url: "https://b.example/1", snippet: "from brave", published_at: "2026-05-02T00:00:00" }]);
    const request = stub.seen.at(-1) as Seen;
    const url = new URL(request.url, "http://x");
    expect(url.pathname).toBe("/res/v1/web/search");
    expect(url.searchParams.get("q")).toBe("seoul weather");
    expect(url.searchParams.get("count")).toBe("4");
    expect(request.headers["x-subscription-token"]).toBe("brave-test-key");
  });

  it("is unavailable, answering NOT_CONFIGURED, with no provider, no SearXNG URL, or no key", async () => {
    for (const [yaml, reason] of [
      ["log:\n  level: info\n", /provider is none/],
      ["web_search:\n  provider: searxng\n", /web_search\.url/],
      ["web_search:\n  provider: tavily\n", /TAVILY_API_KEY/],
      ["web_search:\n  provider: brave\n  api_key_env: BRAVE_KEY\n", /BRAVE_KEY/],
    ] as const) {
      const search = webSearchFor(yaml);
      expect(search.available).toBe(false);
      expect(search.unavailableReason).toMatch(reason);
      expect(await search.search({ query: "x" })).toMatchObject({ status: "error", error: { code: "NOT_CONFIGURED" } });
    }
  });
});
