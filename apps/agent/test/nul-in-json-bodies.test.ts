// One rule for a NUL character (U+0000) in a JSON body, on both thread backends and every API route:
// 400 VALIDATION_FAILED naming where it is, nothing stored or run. (Postgres' jsonb refused it with
// a 500; SQLite stored it.) Real HTTP against a listening agent server; Postgres only when
// THINKTANK_TEST_POSTGRES_URL is set (CI: .ci/start-postgres).
import { needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { nulCharacterAt } from "../src/server/json-body-parser.js";
import { useListeningAgentServer } from "./support/listening-agent-server.js";

const postgresUrl = process.env.THINKTANK_TEST_POSTGRES_URL;
const nul = "a\u0000b";

describe.each([
  ["SQLite", "", needs()],
  ["Postgres", "agent:\n  threads:\n    backend: postgres\n    postgres_url_env: TEST_PG\n", needs("postgres")],
] as const)("a NUL character in a JSON body on %s", (_backend, threadsConfig, options) => {
  const agent = useListeningAgentServer({
    skip: options.skip,
    configYaml: `data_dir: data\n${threadsConfig}models:\n  providers:\n    s:\n      provider: scripted\n`,
    env: postgresUrl ? { TEST_PG: postgresUrl } : {},
  });

  async function send(method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${agent.url}${route}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  const human = (content: string) => ({ messages: [{ type: "human", content }] });

  it("refuses it in message content, metadata, config values and keys on every route with 400 VALIDATION_FAILED, storing nothing", options, async () => {
    const owner = `owner-${Date.now()}`;
    const created = await send("POST", "/threads", { metadata: { owner } });
    expect(created.status).toBe(200);
    const id = created.body.thread_id as string;
    const on = `/threads/${id}`;
    const cases: [string, string, unknown, string][] = [
      ["POST", "/threads", { metadata: { owner, note: nul } }, "body.metadata.note"],
      ["POST", "/threads", { metadata: { owner, [nul]: 1 } }, "a key in body.metadata"],
      ["PATCH", on, { metadata: { note: nul } }, "body.metadata.note"],
      ["POST", `${on}/runs/wait`, { assistant_id: "lead_agent", input: human(`hello ${nul}`) }, "body.input.messages[0].content"],
      ["POST", `${on}/runs`, { assistant_id: "lead_agent", input: human("hello"), config: { configurable: { user: nul } } }, "body.config.configurable.user"],
      ["POST", `${on}/runs/stream`, { assistant_id: "lead_agent", input: human("hello"), metadata: { deep: [{ list: ["ok", nul] }] } }, "body.metadata.deep[0].list[1]"],
      ["POST", `${on}/state`, { values: { messages: [{ type: "human", content: nul }] } }, "body.values.messages[0].content"],
      ["POST", "/threads/search", { metadata: { owner: nul } }, "body.metadata.owner"],
      ["POST", "/threads/count", { metadata: { [nul]: "x" } }, "a key in body.metadata"],
      ["POST", "/runs/wait", { assistant_id: "lead_agent", input: human(nul) }, "body.input.messages[0].content"],
      ["POST", "/assistants/search", { metadata: { "odd key": nul } }, 'body.metadata["odd key"]'],
    ];
    for (const [method, route, body, where] of cases) {
      const answer = await send(method, route, body);
      expect({ route, ...answer }).toEqual({ route, status: 400, body: { code: "VALIDATION_FAILED", message: `${where} contains a NUL character (U+0000), which is not accepted`, details: { field: where } } });
    }
    const thread = await send("GET", on);
    expect(thread.body.metadata).toEqual(created.body.metadata);
    expect(JSON.stringify(thread.body)).not.toContain("\\u0000");
    expect((await send("GET", `${on}/state`)).body.values).toEqual({});
    expect((await send("GET", `${on}/runs`)).body).toEqual([]);
    expect(((await send("POST", "/threads/search", { metadata: { owner } })).body as unknown as unknown[]).length).toBe(1);
  });

  it("stores the text \\u0000 (a backslash, not a NUL) exactly as sent", options, async () => {
    const id = (await send("POST", "/threads", {})).body.thread_id as string;
    const literal = "\\u0000 is how JSON writes a NUL";
    const values = await send("POST", `/threads/${id}/runs/wait`, { assistant_id: "lead_agent", input: human(literal), metadata: { note: literal } });
    expect(values.status).toBe(200);
    expect((values.body.messages as { content: string }[])[0]?.content).toBe(literal);
  });
});

describe("nulCharacterAt", () => {
  it("walks a deeply nested body without recursion and names the path", () => {
    let deep: unknown = nul;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(nulCharacterAt({ a: deep })).toBe(`body.a${"[0]".repeat(100_000)}`);
    expect(nulCharacterAt({ a: [1, null, true, { b: "fine" }] })).toBeUndefined();
  });
});
