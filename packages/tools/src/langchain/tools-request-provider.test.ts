import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterEach, describe, expect, it } from "vitest";
import { WebSearch } from "../builtins/web-search/web-search.js";
import { createToolsFixture, helloWorldDefinition } from "../test-support/tools-fixture.js";
import type { ToolsFixture } from "../test-support/tools-fixture.js";
import { createToolsRequestProvider } from "./tools-request-provider.js";

let fixture: ToolsFixture;
afterEach(() => fixture?.cleanup());

const info = { threadId: "thread-1", runId: "run-1" };

/** A shell tool that sleeps 300 ms and answers when it started and ended (ms since the epoch). */
const sleeper = 'start=$(date +%s%3N)\nsleep 0.3\nend=$(date +%s%3N)\necho "{\\"start\\": $start, \\"end\\": $end}"\n';

async function runTurn(names: readonly string[]): Promise<{ wallMs: number; spans: { start: number; end: number }[] }> {
  const { tools } = await createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor }).contribute(info);
  const message = new AIMessage({ content: "", tool_calls: names.map((name, index) => ({ id: `call_${index}`, name, args: {}, type: "tool_call" as const })) });
  const started = performance.now();
  const output = (await new ToolNode([...tools]).invoke({ messages: [message] })) as { messages: ToolMessage[] };
  const wallMs = performance.now() - started;
  const spans = output.messages.map((reply) => {
    const envelope = JSON.parse(String(reply.content)) as { status: string; data: { start: number; end: number } };
    expect(envelope.status).toBe("success");
    return envelope.data;
  });
  return { wallMs, spans };
}

describe("createToolsRequestProvider", () => {
  it("offers the enabled registered tools as LangChain tools answering the ToolResponse envelope", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    await fixture.registry.register({ definition: helloWorldDefinition({ name: "off_tool", enabled: false }) });
    const provider = createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor });
    const { tools, sections } = await provider.contribute(info);
    expect(tools.map((tool) => tool.name)).toEqual(["hello_world"]);
    expect(tools[0]?.schema).toEqual(helloWorldDefinition().input_schema);
    expect(sections[0]?.text).toMatch(/hello_world\) answer with JSON/);
    const reply = (await tools[0]?.invoke({ id: "call_1", name: "hello_world", args: { name: "Ada" }, type: "tool_call" })) as ToolMessage;
    expect(reply).toBeInstanceOf(ToolMessage);
    expect(reply.tool_call_id).toBe("call_1");
    expect(JSON.parse(String(reply.content))).toEqual({ status: "success", data: { greeting: "Hello, Ada!" } });
    const [record] = await fixture.log.recent({ tool: "hello_world" });
    expect(record).toMatchObject({ source: "agent", thread_id: "thread-1", run_id: "run-1" });
  });

  it("answers arguments that break the schema with TOOL_INVALID_ARGUMENTS in the envelope (and logs them) instead of throwing", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    const { tools } = await createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor }).contribute(info);
    const reply = (await tools[0]?.invoke({ id: "call_2", name: "hello_world", args: { name: 42 }, type: "tool_call" })) as ToolMessage;
    expect(JSON.parse(String(reply.content))).toMatchObject({ status: "error", error: { code: "TOOL_INVALID_ARGUMENTS" } });
    expect((await fixture.log.recent({ tool: "hello_world" }))[0]?.status).toBe("error");
  });

  it("sees a registration and a removal on the very next contribution (hot reload)", async () => {
    fixture = createToolsFixture();
    const provider = createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor });
    expect((await provider.contribute(info)).tools).toEqual([]);
    expect((await provider.contribute(info)).sections).toEqual([]);
    await fixture.registry.register({ definition: helloWorldDefinition() });
    expect((await provider.contribute(info)).tools.map((tool) => tool.name)).toEqual(["hello_world"]);
    await fixture.registry.remove("hello_world");
    expect((await provider.contribute(info)).tools).toEqual([]);
  });

  it("runs parallel_capable tools of one turn together, and the others one at a time", async () => {
    fixture = createToolsFixture();
    for (const name of ["p1", "p2", "p3"]) await fixture.registry.register({ definition: { name, description: name, input_schema: { type: "object" }, runtime: "shell", script: sleeper, parallel_capable: true } });
    for (const name of ["s1", "s2", "s3"]) await fixture.registry.register({ definition: { name, description: name, input_schema: { type: "object" }, runtime: "shell", script: sleeper } });
    const parallel = await runTurn(["p1", "p2", "p3"]);
    const serial = await runTurn(["s1", "s2", "s3"]);
    // Parallel: every call started before any ended. Serial: each started after the previous ended.
    const lastStart = Math.max(...parallel.spans.map((span) => span.start));
    expect(lastStart).toBeLessThan(Math.min(...parallel.spans.map((span) => span.end)));
    const ordered = [...serial.spans].sort((a, b) => a.start - b.start);
    for (let index = 1; index < ordered.length; index++) expect(ordered[index]?.start).toBeGreaterThanOrEqual(ordered[index - 1]?.end as number);
    expect(serial.wallMs).toBeGreaterThanOrEqual(900);
    expect(parallel.wallMs).toBeGreaterThanOrEqual(300);
    expect(parallel.wallMs).toBeLessThan(serial.wallMs);
    console.info(`3 parallel 300 ms tools: ${Math.round(parallel.wallMs)} ms; 3 serial: ${Math.round(serial.wallMs)} ms`);
  });

  it("offers web_search only when a provider is configured, and reports malformed entries once per revision", async () => {
    fixture = createToolsFixture({ tools: { broken: { description: "x", input_schema: { type: "array" }, runtime: "python", script: "b.py" } } });
    const reports: unknown[] = [];
    const unconfigured = new WebSearch({ provider: undefined });
    const configured = new WebSearch({ provider: { name: "stub", search: async () => [{ title: "t", url: "https://x.example", snippet: "s" }] } });
    const without = createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor, webSearch: unconfigured, onProblems: (problems) => reports.push(problems) });
    expect((await without.contribute(info)).tools).toEqual([]);
    await without.contribute(info);
    expect(reports).toHaveLength(1);
    const withSearch = createToolsRequestProvider({ registry: fixture.registry, executor: fixture.executor, webSearch: configured });
    const [search] = (await withSearch.contribute(info)).tools;
    expect(search?.name).toBe("web_search");
    const reply = (await search?.invoke({ id: "c", name: "web_search", args: { query: "news" }, type: "tool_call" })) as ToolMessage;
    expect(JSON.parse(String(reply.content))).toMatchObject({ status: "success", data: { provider: "stub", results: [{ url: "https://x.example" }] } });
  });
});
