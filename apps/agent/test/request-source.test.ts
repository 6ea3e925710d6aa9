import { rawHttpRequest } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

// A web page against the key-less agent server: forged Host (DNS rebinding), foreign Origin, configured origin.

const suite = useSuiteAgent({ extraConfig: ["agent:", '  allowed_origins: ["http://localhost:3000"]'] });

const send = (method: string, pathName: string, headers: Record<string, string>, body?: string) =>
  rawHttpRequest(new URL(pathName, suite.agent.url), method, { "content-type": "application/json", ...headers }, body);

const threadCount = async (): Promise<number> => {
  const found = await send("POST", "/threads/search", { host: new URL(suite.agent.url).host }, JSON.stringify({ limit: 1000 }));
  return (found.body as unknown as unknown[]).length;
};

describe("agent server: Host and Origin", { timeout: 60_000 }, () => {
  it("refuses a foreign Host on every route, /mcp included", async () => {
    for (const [method, route] of [["GET", "/info"], ["GET", "/healthz"], ["POST", "/threads"], ["POST", "/mcp"]] as const) {
      const answer = await send(method, route, { host: "evil.example:2024" }, method === "POST" ? "{}" : undefined);
      expect(answer.status, `${method} ${route}`).toBe(403);
      expect(answer.body.code).toBe("HOST_NOT_ALLOWED");
    }
  });

  it("refuses mutating requests from a foreign browser origin and stores nothing; a configured origin works, with CORS", async () => {
    const host = new URL(suite.agent.url).host;
    const before = await threadCount();
    const foreign: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "http://localhost:5173" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }];
    for (const headers of foreign) {
      const created = await send("POST", "/threads", { host, ...headers }, "{}");
      expect(created.status, JSON.stringify(headers)).toBe(403);
      expect(created.body.code).toBe("ORIGIN_NOT_ALLOWED");
      const run = await send("POST", "/runs/wait", { host, ...headers }, JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "hi" }] } }));
      expect(run.body.code).toBe("ORIGIN_NOT_ALLOWED");
      const mcp = await send("POST", "/mcp", { host, accept: "application/json, text/event-stream", ...headers }, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
      expect(mcp.body.code).toBe("ORIGIN_NOT_ALLOWED");
    }
    expect(await threadCount()).toBe(before);

    const allowed = await send("POST", "/threads", { host, origin: "http://localhost:3000" }, "{}");
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect(await threadCount()).toBe(before + 1);
    const preflight = (origin: string) => send("OPTIONS", "/threads", { host, origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" });
    expect((await preflight("http://localhost:3000")).headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect((await preflight("https://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers a CORS preflight from an origin that is not allowed with 403 ORIGIN_NOT_ALLOWED (the browser shows why), not 404", async () => {
    const host = new URL(suite.agent.url).host;
    for (const [method, route] of [["POST", "/threads"], ["GET", "/threads/00000000-0000-4000-8000-000000000000/state"], ["DELETE", "/threads/00000000-0000-4000-8000-000000000000"]] as const) {
      const refused = await send("OPTIONS", route, { host, origin: "https://evil.example", "access-control-request-method": method, "access-control-request-headers": "content-type,x-api-key" });
      expect({ route, status: refused.status, code: refused.body.code, cors: refused.headers["access-control-allow-origin"] }).toEqual({ route, status: 403, code: "ORIGIN_NOT_ALLOWED", cors: undefined });
      expect(String(refused.body.message)).toContain("allowed_origins");
      const allowed = await send("OPTIONS", route, { host, origin: "http://localhost:3000", "access-control-request-method": method });
      expect({ route, status: allowed.status, cors: allowed.headers["access-control-allow-origin"] }).toEqual({ route, status: 204, cors: "http://localhost:3000" });
    }
  });
});

describe("agent server: a GET that changes state", { timeout: 60_000 }, () => {
  it("refuses a cross-site GET .../stream?cancel_on_disconnect=true (it cancels a run) and lets a plain join through", async () => {
    const host = new URL(suite.agent.url).host;
    const created = await send("POST", "/threads", { host }, "{}");
    const threadId = (created.body as unknown as { thread_id: string }).thread_id;
    const path = `/threads/${threadId}/runs/00000000-0000-4000-8000-000000000000/stream`;
    const foreign: Record<string, string>[] = [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }];
    for (const headers of foreign) {
      for (const flag of ["true", "1"]) {
        const answer = await send("GET", `${path}?cancel_on_disconnect=${flag}`, { host, ...headers });
        expect(answer.status, `${JSON.stringify(headers)} ${flag}`).toBe(403);
        expect(answer.body.code).toBe("ORIGIN_NOT_ALLOWED");
      }
      // Without the flag the GET changes nothing: the guard lets it through (the run does not exist: RUN_NOT_FOUND).
      expect((await send("GET", path, { host, ...headers })).body.code).toBe("RUN_NOT_FOUND");
      expect((await send("GET", `${path}?cancel_on_disconnect=false`, { host, ...headers })).body.code).toBe("RUN_NOT_FOUND");
    }
  });
});
