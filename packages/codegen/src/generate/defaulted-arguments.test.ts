import { describe, expect, it } from "vitest";
import { buildCodeApiIndex } from "../names/code-api-index.js";
import { renderPythonTool } from "../python/render-python-tool.js";
import { renderTypeScriptTool } from "../typescript/render-typescript-tool.js";
import type { CodegenTool } from "./codegen-types.js";

// Schemas made with zod's `.default()` in its output mode list a defaulted property as required
// (@playwright/mcp's browser_take_screenshot lists `scale`, default "css"); the server fills it in.
const screenshot: CodegenTool = {
  name: "take_screenshot",
  inputSchema: {
    type: "object",
    properties: { scale: { type: "string", enum: ["css", "device"], default: "css" }, url: { type: "string" } },
    required: ["scale"],
  },
  outputSchema: { type: "object", properties: { scale: { type: "string", default: "css" } }, required: ["scale"] },
};
const navigate: CodegenTool = {
  name: "navigate",
  inputSchema: { type: "object", properties: { url: { type: "string" }, wait: { type: "boolean", default: false } }, required: ["url", "wait"] },
};
const entryOf = (tool: CodegenTool) => buildCodeApiIndex([{ server: "browser", tools: [screenshot, navigate] }]).find("browser", tool.name)!;

describe("arguments that declare a default", () => {
  it("are optional in the TypeScript Input (so the wrapper's argument may be left out), and stay required in the Response", () => {
    const { source } = renderTypeScriptTool(screenshot, entryOf(screenshot));
    expect(source).toMatch(/export type Input = \{[^}]*\n {2}scale\?: "css" \| "device";/);
    expect(source).toMatch(/export type Response = \{[^}]*\n {2}scale: string;/);
    expect(source).toContain("export async function takeScreenshot(input?: Input): Promise<Response> {");
    const other = renderTypeScriptTool(navigate, entryOf(navigate)).source;
    expect(other).toMatch(/\n {2}url: string;/);
    expect(other).toMatch(/\n {2}wait\?: boolean;/);
    expect(other).toContain("export async function navigate(input: Input): Promise<Response> {");
  });

  it("are NotRequired in the Python Input and not documented as required", () => {
    const { source } = renderPythonTool(navigate, entryOf(navigate));
    expect(source).toContain("    url: str\n");
    expect(source).toContain("    wait: NotRequired[bool]\n");
    expect(source).toContain("    url (required):");
    expect(source).toMatch(/ {4}wait: /);
  });
});
