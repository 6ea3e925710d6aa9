import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

function expectErrorBody(body: unknown, code: string): void {
  expect(body).toMatchObject({ code, message: expect.any(String) });
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

describe("error answers", () => {
  it("answers an unknown route with 404 NOT_FOUND as JSON", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "GET", url: "/api/nothing-here?x=1" });
    expect(response.statusCode).toBe(404);
    expect(response.headers["content-type"]).toContain("application/json");
    expect(response.json()).toEqual({ code: "NOT_FOUND", message: "no route GET /api/nothing-here" });
  });

  it("answers malformed and empty JSON bodies with 400 INVALID_JSON, and a poisoned one too", async () => {
    gateway = await createTestGateway();
    for (const payload of ['{"command": "node",', "", '{"__proto__": {"x": 1}, "command": "n"}']) {
      const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "content-type": "application/json" }, payload });
      expect(response.statusCode, payload).toBe(400);
      expectErrorBody(response.json(), "INVALID_JSON");
    }
  });

  it("answers schema violations with 400 VALIDATION_FAILED and the path of the field", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", payload: { command: "node", env: { PORT: { nested: true } } } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_FAILED", details: { problems: [{ path: "body.env.PORT", message: "must be string" }] } });
    const badName = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/has:colon", payload: { command: "node" } });
    expect(badName.statusCode).toBe(400);
    expect(badName.json()).toMatchObject({ code: "VALIDATION_FAILED", details: { problems: [{ path: "params.name" }] } });
  });

  it("answers a body over the limit with 413 PAYLOAD_TOO_LARGE", async () => {
    gateway = await createTestGateway({ configYaml: "gateway:\n  max_upload_mb: 0.01\n" });
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", payload: { command: "node", description: "x".repeat(20_000) } });
    expect(response.statusCode).toBe(413);
    expectErrorBody(response.json(), "PAYLOAD_TOO_LARGE");
  });

  it("answers an upload over the limit with 413, and a second file with 413", async () => {
    gateway = await createTestGateway({
      configYaml: "gateway:\n  max_upload_mb: 0.01\n",
      extend: (app) =>
        app.post("/test/upload", async (request) => {
          let bytes = 0;
          for await (const part of request.parts()) if (part.type === "file") for await (const chunk of part.file) bytes += (chunk as Buffer).length;
          return { bytes };
        }),
    });
    const form = (files: number, size: number): { payload: string; headers: Record<string, string> } => {
      const boundary = "----tt";
      const parts = Array.from({ length: files }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="file${i}"; filename="f${i}.zip"\r\nContent-Type: application/zip\r\n\r\n${"z".repeat(size)}\r\n`);
      return { payload: `${parts.join("")}--${boundary}--\r\n`, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
    };
    const small = await gateway.app.inject({ method: "POST", url: "/test/upload", ...form(1, 100) });
    expect(small.json()).toEqual({ bytes: 100 });
    const large = await gateway.app.inject({ method: "POST", url: "/test/upload", ...form(1, 20_000) });
    expect(large.statusCode).toBe(413);
    expectErrorBody(large.json(), "PAYLOAD_TOO_LARGE");
    const two = await gateway.app.inject({ method: "POST", url: "/test/upload", ...form(2, 10) });
    expect(two.statusCode).toBe(413);
    expectErrorBody(two.json(), "PAYLOAD_TOO_LARGE");
    // What was wrong is the count, not the size.
    expect(two.json().message).toMatch(/more than one file/);
    expect(two.json().message).not.toMatch(/max_upload_mb/);
  });

  it("answers an unsupported content type with 415", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "content-type": "application/xml" }, payload: "<a/>" });
    expect(response.statusCode).toBe(415);
    expectErrorBody(response.json(), "UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers an unexpected failure with 500 INTERNAL without details, and logs the stack with the request id", async () => {
    gateway = await createTestGateway({
      extend: (app) =>
        app.get("/test/crash", async () => {
          throw new Error("secret internals at /srv/app.ts:12");
        }),
    });
    const response = await gateway.app.inject({ method: "GET", url: "/test/crash", headers: { "x-request-id": "trace-42" } });
    expect(response.statusCode).toBe(500);
    expect(response.headers["x-request-id"]).toBe("trace-42");
    expect(response.json()).toEqual({ code: "INTERNAL", message: "internal error; the gateway log has the details (request id trace-42)" });
    expect(gateway.logs()).toMatch(/"reqId":"trace-42".*secret internals/);
  });

  it("gives every request an id, keeping a well-formed incoming one", async () => {
    gateway = await createTestGateway();
    const fresh = await gateway.app.inject({ method: "GET", url: "/healthz" });
    expect(fresh.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const odd = await gateway.app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "bad id\nwith newline" } });
    expect(odd.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.json()).toMatchObject({ status: "ok" });
  });

  it("logs nothing per request at info while requests go well (one access line each at debug)", async () => {
    gateway = await createTestGateway();
    for (let i = 0; i < 5; i += 1) expect((await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).statusCode).toBe(200);
    expect(gateway.logs()).not.toMatch(/"msg":"(request|incoming request|request completed)"/);
  });

  it("never logs an API key, a token in a URL or an authorization header", async () => {
    gateway = await createTestGateway({ apiKey: "super-secret-key-0001", logLevel: "debug" });
    await gateway.app.inject({ method: "GET", url: "/healthz?token=url-secret-0002", headers: { authorization: "Bearer super-secret-key-0001" } });
    await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a?api_key=url-secret-0003", headers: { "x-api-key": "super-secret-key-0001" }, payload: { command: "x" } });
    await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/b?access_token=url-secret-0004", headers: { "x-api-key": "wrong" }, payload: { command: "x" } });
    // One access line per request (debug when it went well, info for the 401), URLs with their secrets masked.
    expect(gateway.logs().match(/"msg":"request"/g)).toHaveLength(3);
    expect(gateway.logs()).toContain('"status":401');
    // The line names who called (the operator is "admin"); the refused request names nobody.
    const accessLines = gateway.logs().split("\n").filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as { status: number; caller?: string });
    expect(accessLines.map((line) => [line.status, line.caller ?? null])).toEqual([[200, "admin"], [expect.any(Number), "admin"], [401, null]]);
    expect(gateway.logs()).not.toMatch(/super-secret-key-0001|url-secret-0002|url-secret-0003|url-secret-0004/);
  });
});
