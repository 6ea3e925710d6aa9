import fs from "node:fs";
import path from "node:path";
import { McpManager } from "@thinktank/mcp";
import { readSkillContextSpec } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { ToolExecutor } from "@thinktank/tools";
import { afterEach, describe, expect, it } from "vitest";
import { createScopedTools } from "./scoped-tools.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("createScopedTools", () => {
  it("offers no script tool of a skill whose scripts are denied (a plugin's under plugins.host_programs: deny), trusted or not", async () => {
    const temp = makeTempDir("tt-scoped-denied-");
    cleanups.push(temp.cleanup);
    const marker = path.join(temp.dir, "ran");
    const skillDir = path.join(temp.dir, "plugins/installed/sales/skills/words");
    writeTree(skillDir, {
      "SKILL.md": "---\nname: words\ndescription: Counts words\n---\n",
      "scripts/mark.js": `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"); console.log("{}");\n`,
      "tools.json": JSON.stringify({ tools: [{ name: "mark", description: "Marks", runtime: "node", script: "mark.js", input_schema: { type: "object" } }] }),
    });
    const spec = readSkillContextSpec(skillDir, { trusted: true, containerDir: "/mnt/skills/plugins/sales/words" });
    const manager = new McpManager({ mcp: { connect_timeout_ms: 1000, call_timeout_ms: 1000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") }, env: {} });
    cleanups.push(() => manager.close());
    const scriptTools = new ToolExecutor({ searchPath: process.env.PATH, workRoot: temp.dir });
    const options = { manager, scriptTools, threadId: "t", runId: "r" };

    const allowed = await createScopedTools(spec.tools, options);
    expect(allowed.tools.map((tool) => tool.name)).toEqual(["mark"]);
    const denied = await createScopedTools(spec.tools, { ...options, scriptsDenied: "plugins.host_programs is deny: no program a plugin brings runs" });
    expect(denied.tools).toEqual([]);
    expect(denied.unavailable).toEqual([{ name: "mark", reason: "TOOL_UNAVAILABLE: plugins.host_programs is deny: no program a plugin brings runs" }]);

    // The allowed one does run (so the check above could fail).
    await allowed.tools[0]?.invoke({});
    expect(fs.existsSync(marker)).toBe(true);
  });
});
