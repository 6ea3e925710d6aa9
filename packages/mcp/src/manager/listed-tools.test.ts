import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readListedTools } from "./listed-tools.js";
import type { ListedToolProblem } from "./listed-tools.js";
import type { ManagerLogger } from "./manager-types.js";
import { McpManager } from "./mcp-manager.js";
import { testServerEntry } from "./testing/test-server-entry.js";

let temp: { dir: string; cleanup: () => void };
let manager: McpManager | undefined;
beforeEach(() => {
  temp = makeTempDir("tt-mcp-listed-");
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  temp.cleanup();
});

function warningsLogger(warnings: { details: Record<string, unknown>; message: string }[]): ManagerLogger {
  const ignore = (): void => {};
  return { debug: ignore, info: ignore, error: ignore, warn: (details, message) => warnings.push({ details, message }) };
}

function makeManager(env: Record<string, string>, logger?: ManagerLogger): McpManager {
  manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 30_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      ...(logger ? { logger } : {}),
    },
    { odd: testServerEntry(env) },
  );
  return manager;
}

const textOf = (result: { content: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? "");

describe("tools as published servers list them", () => {
  it("connects a server with malformed tools: repairs what has a plain meaning, leaves out the rest, and says so", async () => {
    const warnings: { details: Record<string, unknown>; message: string }[] = [];
    const odd = makeManager({ TEST_SERVER_ODD_TOOLS: "1" }, warningsLogger(warnings));
    const tools = await odd.listTools("odd");
    expect(odd.statusOf("odd")).toMatchObject({ state: "connected", toolCount: 13 });
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "slow", "hang", "fail", "exit", "whoami", "add_tool", "bare", "untyped", "pattern_out", "dangling_ref_out", "array_out", "mismatch"]);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("bare")?.inputSchema).toEqual({ type: "object" });
    expect(byName.get("untyped")?.inputSchema).toEqual({ type: "object", properties: { q: { type: "string" } }, required: ["q"] });
    expect(byName.get("array_out")).not.toHaveProperty("outputSchema");
    expect(byName.get("array_out")).not.toHaveProperty("annotations");
    expect(byName.get("echo")?.description).toBe("Echoes text back, as text and as structured content.");
    expect(byName.get("pattern_out")?.outputSchema).toBeDefined();
    const said = warnings.map((warning) => `${warning.message}: ${String(warning.details.tool)}`);
    expect(said).toEqual(
      expect.arrayContaining([
        "mcp tool repaired: bare",
        "mcp tool repaired: untyped",
        "mcp tool repaired: array_out",
        "mcp tool left out: it cannot be used as listed: #12",
        "mcp tool left out: it cannot be used as listed: echo",
        "mcp tool outputSchema cannot be compiled: its results are not checked: pattern_out",
        "mcp tool outputSchema cannot be compiled: its results are not checked: dangling_ref_out",
      ]),
    );
  });

  it("calls tools whose outputSchema does not compile, unchecked, and still refuses structuredContent that a valid outputSchema rejects", async () => {
    const odd = makeManager({ TEST_SERVER_ODD_TOOLS: "1" });
    expect(textOf(await odd.callTool("odd", "pattern_out"))).toBe("called pattern_out");
    expect(textOf(await odd.callTool("odd", "dangling_ref_out"))).toBe("called dangling_ref_out");
    expect(textOf(await odd.callTool("odd", "bare", { anything: 1 }))).toBe("called bare");
    expect((await odd.callTool("odd", "echo", { text: "hi" })).structuredContent).toEqual({ echoed: "hi" });
    let refused: unknown;
    try {
      await odd.callTool("odd", "mismatch");
    } catch (error) {
      refused = error;
    }
    expect(isThinktankError(refused) && refused.message).toContain("Structured content does not match the tool's output schema");
  });

  it("connects a server of prompts only, with no tools", async () => {
    const promptsOnly = makeManager({ TEST_SERVER_NO_TOOLS: "1" });
    expect(await promptsOnly.listTools("odd")).toEqual([]);
    expect(promptsOnly.statusOf("odd")).toMatchObject({ state: "connected", toolCount: 0 });
  });
});

describe("readListedTools", () => {
  it("keeps valid tools exactly as the SDK parses them and checks each tool on its own", () => {
    const problems: ListedToolProblem[] = [];
    const page = {
      tools: [
        { name: "a", inputSchema: { type: "object", properties: { x: { type: "string" } } }, extra: 1 },
        "not a tool",
        { name: "", inputSchema: { type: "object" } },
        { name: "b", inputSchema: { type: "string" }, title: 5 },
        { name: "c", inputSchema: { type: "object", properties: { x: 3 } } },
        { name: "d", inputSchema: { type: "object", properties: { anything: true, nothing: false } } },
      ],
    };
    const tools = readListedTools(page, (problem) => problems.push(problem));
    expect(tools).toEqual([
      { name: "a", inputSchema: { type: "object", properties: { x: { type: "string" } } } },
      { name: "b", inputSchema: { type: "object" } },
      { name: "d", inputSchema: { type: "object", properties: { anything: {}, nothing: { not: {} } } } },
    ]);
    expect(problems.map((problem) => [problem.tool, problem.dropped])).toEqual([
      ["#1", true],
      ["#2", true],
      ["b", false],
      ["b", false],
      ["c", true],
      ["d", false],
    ]);
    expect(problems[4]?.problem).toMatch(/^malformed: inputSchema\.properties\.x/);
    expect(readListedTools({ nothing: true }, () => {})).toEqual([]);
  });
});
