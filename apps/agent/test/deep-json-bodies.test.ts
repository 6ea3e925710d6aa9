// A JSON body nested thousands of levels deep: 400 VALIDATION_FAILED before anything is stored or
// run (POST /threads answered 500 from the stack overflow where the metadata was stored). Real
// HTTP against a listening agent server.
import { describe, expect, it } from "vitest";
import { useListeningAgentServer } from "./support/listening-agent-server.js";

/** `{"a":{"a":...1...}}` nested `levels` deep, as text. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("a deeply nested JSON body at the agent server", () => {
  const agent = useListeningAgentServer();

  async function send(method: string, route: string, body?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${agent.url}${route}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body }) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  it("is refused with 400 VALIDATION_FAILED on every route, nothing stored; brackets inside strings and ordinary nesting pass", async () => {
    const owner = `owner-${Date.now()}`;
    const before = await send("POST", "/threads/search", JSON.stringify({ metadata: { owner } }));
    expect(before.body).toEqual([]);
    for (const levels of [5_000, 50_000]) {
      for (const [method, route, body] of [
        ["POST", "/threads", `{"metadata":{"owner":"${owner}","deep":${nested(levels)}}}`],
        ["POST", "/runs/wait", `{"assistant_id":"lead_agent","metadata":{"owner":"${owner}"},"input":{"messages":[{"type":"human","content":"hi"}]},"config":{"configurable":{"x":${nested(levels)}}}}`],
        ["PUT", "/store/items", `{"namespace":["${owner}"],"key":"k","value":${nested(levels)}}`],
      ] as const) {
        const answer = await send(method, route, body);
        expect(answer.status, `${method} ${route} ${levels}`).toBe(400);
        expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("nests deeper than") });
      }
    }
    expect((await send("POST", "/threads/search", JSON.stringify({ metadata: { owner } }))).body).toEqual([]);
    const brackets = "[".repeat(10_000);
    const created = await send("POST", "/threads", JSON.stringify({ metadata: { owner, brackets, deep: JSON.parse(nested(50)) } }));
    expect(created.status).toBe(200);
    expect((created.body.metadata as Record<string, unknown>).brackets).toBe(brackets);
  });
});
