import { describe, expect, it } from "vitest";
import { serversNamedIn } from "./servers-named-in.js";

describe("serversNamedIn", () => {
  const servers = ["everything", "hang", "memory", "sales:slack"];

  it("finds the servers a TypeScript or Python program imports, by the generator's folder and package names", () => {
    expect(serversNamedIn('import { getSum } from "servers/everything";\nimport { post } from "/mnt/code-api/servers/sales-slack/index.ts";', servers)).toEqual(["everything", "sales:slack"]);
    expect(serversNamedIn("from servers.sales_slack import post\nimport servers.memory\n", servers)).toEqual(["memory", "sales:slack"]);
    expect(serversNamedIn("from servers import (memory,\n  everything as e)\n", servers)).toEqual(["everything", "memory"]);
  });

  it("names none for a program that imports no wrapper (callMCPTool connects on the call)", () => {
    expect(serversNamedIn("console.log(1)", servers)).toEqual([]);
    expect(serversNamedIn('import { callMCPTool } from "/mnt/code-api/runtime/call-mcp-tool.ts"; await callMCPTool("hang", "x", {});', servers)).toEqual([]);
    expect(serversNamedIn('import { x } from "servers/unknown";', servers)).toEqual([]);
  });
});
