import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunnableTool } from "../registry/tool-definition.js";
import { createToolsFixture, helloWorldDefinition } from "../test-support/tools-fixture.js";
import type { ToolsFixture } from "../test-support/tools-fixture.js";

let fixture: ToolsFixture;
afterEach(() => fixture?.cleanup());

function untrusted(scriptPath: string, extra: Partial<RunnableTool> = {}): RunnableTool {
  return {
    name: "skill_tool",
    description: "A skill's tool",
    input_schema: { type: "object" },
    runtime: "python",
    script: path.basename(scriptPath),
    timeout: 10,
    parallel_capable: false,
    enabled: true,
    scriptPath,
    trusted: false,
    folder: { hostDir: path.dirname(scriptPath), sandboxDir: "/mnt/skills/custom/demo" },
    ...extra,
  };
}

describe("untrusted tools without a sandbox", () => {
  it("answer TOOL_UNAVAILABLE and never run on the host; the log says the call was for the sandbox", async () => {
    fixture = createToolsFixture();
    const marker = path.join(fixture.dir, "ran-on-host");
    const script = path.join(fixture.dir, "tool.py");
    fs.writeFileSync(script, `open(${JSON.stringify(marker)}, "w").write("x")\nprint("{}")\n`);
    const tool = untrusted(script);
    expect(await fixture.executor.availability(tool)).toEqual({ ok: false, reason: expect.stringContaining("runs only in the sandbox") });
    const response = await fixture.executor.run(tool, {}, { source: "test" });
    expect(response).toMatchObject({ status: "error", error: { code: "TOOL_UNAVAILABLE", message: expect.stringContaining("'skill_tool' cannot run here") } });
    expect(fs.existsSync(marker)).toBe(false);
    const [record] = await fixture.log.recent({ tool: "skill_tool" });
    expect(record).toMatchObject({ status: "error", sandboxed: true });
  });

  it("the same script trusted runs on the host as before, and registered tools are trusted (logged sandboxed: false)", async () => {
    fixture = createToolsFixture();
    const script = path.join(fixture.dir, "tool.py");
    fs.writeFileSync(script, 'print(\'{"where": "host"}\')\n');
    expect(await fixture.executor.run(untrusted(script, { trusted: true }), {})).toEqual({ status: "success", data: { where: "host" } });
    await fixture.registry.register({ definition: helloWorldDefinition({ network: ["api.example.com", "*.example.org:8443"] }) });
    expect(await fixture.registry.runnable("hello_world")).toMatchObject({ trusted: true, network: ["api.example.com", "*.example.org:8443"] });
    expect(await fixture.executor.invoke("hello_world", { name: "Ada" })).toEqual({ status: "success", data: { greeting: "Hello, Ada!" } });
    const [record] = await fixture.log.recent({ tool: "hello_world" });
    expect(record).toMatchObject({ status: "success", sandboxed: false });
  });

  it("a registered tool's network must be host patterns", async () => {
    fixture = createToolsFixture();
    await expect(fixture.registry.register({ definition: helloWorldDefinition({ network: ["http://api.example.com/path"] }) })).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      details: { problems: [expect.objectContaining({ path: "network[0]" })] },
    });
    await expect(fixture.registry.register({ definition: helloWorldDefinition({ network: "api.example.com" }) })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });
});
