// A very long :name in a path reaches its route's own rule and answers in our { code, message } shape,
// never the router's 414 with Fastify's own body; so does a path the router cannot decode. Real HTTP.
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

let gateway: TestGateway;
let url: string;

beforeAll(async () => {
  gateway = await createTestGateway();
  const port = await freePort();
  await gateway.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
});
afterAll(async () => gateway?.close());

async function send(method: string, route: string): Promise<{ status: number; body: Record<string, unknown>; requestId: string | null }> {
  const response = await fetch(`${url}${route}`, { method, ...(method === "PUT" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, requestId: response.headers.get("x-request-id") };
}

describe("long path parameters", () => {
  const long = "n".repeat(5000);
  it.each([
    ["GET", `/api/skills/${long}`],
    ["PUT", `/api/skills/${long}`],
    ["DELETE", `/api/skills/${long}`],
    ["GET", `/api/tools/${long}`],
    ["GET", `/api/tools/${long}/executions`],
    ["DELETE", `/api/tools/${long}`],
    ["GET", `/api/mcp/servers/${long}`],
    ["PUT", `/api/mcp/servers/${long}`],
    ["GET", `/api/plugins/${long}`],
    ["GET", `/api/plugins/${long}/commands`],
  ])("%s %# answers 400 VALIDATION_FAILED on params.name", async (method, route) => {
    const answer = await send(method, route);
    expect(answer).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED", details: { problems: [{ path: "params.name" }] } } });
    expect(JSON.stringify(answer.body)).not.toContain("FST_ERR");
  });

  it("a name just over the router's old limit of 100 is looked up like any other", async () => {
    expect(await send("GET", `/api/skills/${"n".repeat(150)}`)).toMatchObject({ status: 404, body: { code: "SKILL_NOT_FOUND" } });
  });

  it("a path the router cannot decode answers 400 BAD_REQUEST in our shape, with a request id", async () => {
    const answer = await send("GET", "/api/skills/%zz");
    expect(answer).toMatchObject({ status: 400, body: { code: "BAD_REQUEST", message: "'/api/skills/%zz' is not a valid url component" } });
    expect(answer.requestId).toBeTruthy();
  });
});
