// One thread-id rule on every route: ids that POST /threads refuses are refused the same way where a
// run would create the thread (if_not_exists: "create") or a route reads it, with 4xx and nothing
// stored (no record, no folder). Raw HTTP against the agent server process.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

const suite = useSuiteAgent();

async function send(method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${suite.agent.url}${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const run = { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "hello" }] }, if_not_exists: "create" };
const overLong = "a".repeat(101);
const farTooLong = "b".repeat(8000);
const hostile: [string, string][] = [
  ["a path out of the data dir", "../../x"],
  ["a slash", "a/b"],
  ["a hidden name", ".hidden"],
  ["a NUL byte", "x\u0000y"],
  ["a dot", "a.b"],
  ["a leading dash", "-x"],
  ["an over-long id", overLong],
  ["an id of 8000 characters", farTooLong],
  ["an empty id", ""],
];

/** Everything under the data dir, relative (the SQLite files only, when no thread made a folder). */
function dataEntries(): string[] {
  return (fs.readdirSync(path.join(suite.fixture.dir, "data"), { recursive: true }) as string[]).sort();
}

describe("the thread-id rule", { timeout: 60_000 }, () => {
  it.each(hostile)("refuses %s on every route, storing nothing", async (_name, id) => {
    const created = await send("POST", "/threads", { thread_id: id });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe("VALIDATION_FAILED");

    const inPath = encodeURIComponent(id);
    const answers = [
      await send("POST", `/threads/${inPath}/runs`, run),
      await send("POST", `/threads/${inPath}/runs/wait`, run),
      await send("POST", `/threads/${inPath}/runs/stream`, run),
      await send("GET", `/threads/${inPath}`),
      await send("GET", `/threads/${inPath}/state`),
      await send("POST", `/threads/${inPath}/history`, {}),
      await send("POST", "/runs/cancel", { thread_id: id }),
      await send("POST", "/threads/prune", { thread_ids: [id] }),
    ];
    for (const answer of answers) expect(answer).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED" } });
    // Over-long ids in a path meet the same rule and message as in a body, never the router's 414 body.
    if (id.length > 100) for (const answer of answers) expect(answer).toEqual({ status: 400, body: created.body });
  });

  it("accepts the longest id on every route: what POST /threads creates, a path can address", async () => {
    const longest = `L${"x".repeat(99)}`;
    expect((await send("POST", "/threads", { thread_id: longest })).status).toBe(200);
    expect(await send("GET", `/threads/${longest}`)).toMatchObject({ status: 200, body: { thread_id: longest } });
    expect((await send("GET", `/threads/${longest}/state`)).status).toBe(200);
  });

  it("answers a path the router cannot decode in our error shape, not Fastify's", async () => {
    expect(await send("GET", "/threads/%zz/state")).toEqual({ status: 400, body: { code: "BAD_REQUEST", message: "'/threads/%zz/state' is not a valid url component" } });
  });

  it("stored none of the refused ids, and made no folder for them", async () => {
    const valid = await send("POST", "/threads", { thread_id: "Valid_id-1" });
    expect(valid.status).toBe(200);
    const stored = await send("POST", "/threads/search", { limit: 1000, sort_by: "thread_id", sort_order: "asc" });
    expect((stored.body as unknown as { thread_id: string }[]).map((thread) => thread.thread_id)).toEqual([`L${"x".repeat(99)}`, "Valid_id-1"]);
    // The data folder holds the database, the MCP status record (mcp-status/<replica>.json) and the workspaces folder made at start
    // (with the script tools' fresh folders), nothing named after a refused id.
    const entries = dataEntries().filter((entry) => !entry.startsWith("threads.sqlite"));
    // (a record being rewritten at this moment shows its temp file beside it)
    expect(entries.filter((entry) => entry.startsWith("mcp-status/")).every((entry) => /^mcp-status\/[\w-]+\.json(\.\d+\.tmp)?$/.test(entry))).toBe(true);
    expect(entries.filter((entry) => !entry.startsWith("mcp-status"))).toEqual(["workspaces", "workspaces/.script-runs"]);
    expect(fs.existsSync(path.join(suite.fixture.dir, "x"))).toBe(false);
    expect(fs.existsSync(path.resolve(suite.fixture.dir, "data", "../../x"))).toBe(false);
  });
});
