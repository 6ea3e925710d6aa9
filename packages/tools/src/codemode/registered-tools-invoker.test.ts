import { afterEach, describe, expect, it } from "vitest";
import { createToolsFixture, helloWorldDefinition } from "../test-support/tools-fixture.js";
import type { ToolsFixture } from "../test-support/tools-fixture.js";
import { RegisteredToolsInvoker } from "./registered-tools-invoker.js";

let fixture: ToolsFixture;
afterEach(() => fixture?.cleanup());

describe("RegisteredToolsInvoker (code mode's ToolInvoker seam)", () => {
  it("lists the enabled tools as server 'tools' in the catalog format, refreshed from the registry", async () => {
    fixture = createToolsFixture();
    const invoker = new RegisteredToolsInvoker({ registry: fixture.registry, executor: fixture.executor });
    const changes: string[] = [];
    invoker.onToolsChanged((server) => changes.push(server));
    await invoker.discover();
    expect(invoker.serverNames()).toEqual([]);
    await fixture.registry.register({ definition: helloWorldDefinition() });
    await fixture.registry.register({ definition: helloWorldDefinition({ name: "hidden", enabled: false }) });
    await fixture.registry.register({ definition: helloWorldDefinition({ name: "listy", output_schema: { type: "array" } }) });
    expect(invoker.serverNames()).toEqual([]);
    const tools = await invoker.listTools("tools");
    expect(invoker.serverNames()).toEqual(["tools"]);
    expect(tools.map((tool) => tool.name)).toEqual(["hello_world", "listy"]);
    expect(tools[0]).toMatchObject({ inputSchema: helloWorldDefinition().input_schema, outputSchema: helloWorldDefinition().output_schema });
    expect(tools[1]).not.toHaveProperty("outputSchema");
    expect(invoker.describe("tools")).toMatchObject({ transport: "script", status: "connected", tool_count: 2 });
    expect(changes).toEqual(["tools"]);
    // Unchanged registry: the same array, and no notification.
    await invoker.discover();
    expect(invoker.knownTools("tools")).toBe(tools);
    expect(changes).toEqual(["tools"]);
    expect(() => invoker.describe("github")).toThrow(/no server named 'github'/);
  });

  it("calls a tool: data as structuredContent and JSON text; errors as isError with the code", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    const invoker = new RegisteredToolsInvoker({ registry: fixture.registry, executor: fixture.executor });
    expect(await invoker.callTool("tools", "hello_world", { name: "Code" })).toEqual({
      content: [{ type: "text", text: '{"greeting":"Hello, Code!"}' }],
      structuredContent: { greeting: "Hello, Code!" },
    });
    const failed = await invoker.callTool("tools", "hello_world", {});
    expect(failed.isError).toBe(true);
    expect(failed.content[0]?.text).toMatch(/^TOOL_INVALID_ARGUMENTS: /);
    expect((await fixture.log.recent({ tool: "hello_world" }))[0]?.source).toBe("code");
  });
});
