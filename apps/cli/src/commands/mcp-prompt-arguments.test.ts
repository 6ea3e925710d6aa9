import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { splitTarget } from "./mcp-call.js";
import { promptForArguments } from "./mcp-prompt-arguments.js";
import { renderToolResult, singleBinaryBlock } from "./render-tool-result.js";

const schema = {
  type: "object",
  required: ["title", "count", "mode"],
  properties: {
    title: { type: "string", description: "What to call it\nsecond line not shown" },
    count: { type: "integer", minimum: 1, maximum: 10 },
    mode: { enum: ["fast", "safe"], description: "How to run" },
    verbose: { type: "boolean", default: false },
    tags: { type: "array", items: { type: "string" } },
    sizes: { type: "array", items: { type: "number" } },
    extra: { type: "object" },
    note: { type: ["string", "null"] },
    anything: {},
  },
};

async function answer(lines: string[], given?: Record<string, unknown>): Promise<{ value: Record<string, unknown>; asked: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let asked = "";
  output.on("data", (chunk: Buffer) => (asked += chunk.toString()));
  input.end(`${lines.join("\n")}\n`);
  const value = await promptForArguments(schema, { input, output, ...(given ? { given } : {}) });
  return { value, asked };
}

describe("promptForArguments", () => {
  it("types each answer by its schema and leaves out optional parameters answered with nothing", async () => {
    const { value, asked } = await answer(["My title", "3", "2", "y", "a, b ,c", "1.5,2", '{"k":1}', "", "[1,\"x\"]"]);
    expect(value).toEqual({ title: "My title", count: 3, mode: "safe", verbose: true, tags: ["a", "b", "c"], sizes: [1.5, 2], extra: { k: 1 }, anything: [1, "x"] });
    expect(asked).toContain("title* (string) — What to call it\n");
    expect(asked).not.toContain("second line");
    expect(asked).toContain("mode* (one of the choices) — How to run\n  1) \"fast\"\n  2) \"safe\"");
    expect(asked).toContain("range: 1 .. 10");
    expect(asked).toContain("default: false (empty answer)");
  });

  it("asks again on a bad answer, insists on required ones, and takes defaults", async () => {
    const { value, asked } = await answer(["", "t", "0", "2.5", "eleven", "4", "slow", "fast", "", "", "", "not json", "", "", "plain words"]);
    expect(value).toEqual({ title: "t", count: 4, mode: "fast", verbose: false, anything: "plain words" });
    expect(asked).toContain("'title' is required");
    expect(asked).toContain("expected at least 1, got 0");
    expect(asked).toContain("expected a whole number, got '2.5'");
    expect(asked).toContain("expected a number, got 'eleven'");
    expect(asked).toContain("expected one of \"fast\", \"safe\" (or its number), got 'slow'");
    expect(asked).toContain("expected a JSON object, got 'not json' (not valid JSON)");
  });

  it("does not ask for what --args already gave, and fails when the input ends early", async () => {
    const { value, asked } = await answer(["", "", "", "", "", "", ""], { title: "given", count: 2, mode: "fast" });
    expect(value).toEqual({ title: "given", count: 2, mode: "fast", verbose: false });
    expect(asked).not.toContain("title*");
    await expect(answer(["only a title"])).rejects.toThrow("input ended before 'count' was answered");
  });

  it("asks nothing for a tool without parameters", async () => {
    const input = new PassThrough();
    expect(await promptForArguments({ type: "object" }, { input, output: new PassThrough() })).toEqual({});
  });
});

describe("splitTarget", () => {
  it("matches the longest configured name, so names may hold dots and colons", () => {
    expect(splitTarget("github.create_issue", ["github"])).toEqual({ server: "github", tool: "create_issue" });
    expect(splitTarget("my.server.tool.v2", ["my", "my.server"])).toEqual({ server: "my.server", tool: "tool.v2" });
    expect(splitTarget("plugin:docs.search", ["plugin:docs"])).toEqual({ server: "plugin:docs", tool: "search" });
    expect(() => splitTarget("nope.tool", ["github"])).toThrow("no MCP server named 'nope' (configured: github)");
    expect(() => splitTarget("github.", ["github"])).toThrow("expected SERVER.TOOL, got 'github.'");
  });
});

describe("renderToolResult", () => {
  it("shows text as is, other blocks as notes, and structured content when there is no text", () => {
    const image = Buffer.from("png bytes").toString("base64");
    expect(
      renderToolResult({
        content: [
          { type: "text", text: "hello" },
          { type: "image", mimeType: "image/png", data: image },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
          { type: "resource_link", name: "doc", uri: "file:///doc" },
        ],
      }),
    ).toBe("hello\n[image image/png, 9 bytes]\ninside\n[link doc: file:///doc]\n");
    expect(renderToolResult({ content: [], structuredContent: { a: 1 } })).toBe('{\n  "a": 1\n}\n');
    expect(singleBinaryBlock({ content: [{ type: "image", mimeType: "image/png", data: image }] })?.toString()).toBe("png bytes");
    expect(singleBinaryBlock({ content: [{ type: "text", text: "x" }] })).toBeUndefined();
  });
});
