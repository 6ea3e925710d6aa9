#!/usr/bin/env node
// A small real MCP server over stdio for tests that need behaviour the reference servers lack:
// a tool that never answers, one that exits mid-call, tool lists that change, paginated lists,
// refusing to start. Built on the SDK's low-level Server so the tool list is fully under control.
//
// Environment:
//   TEST_SERVER_START_LOG   append this process's pid to the file at start (counts processes)
//   TEST_SERVER_REFUSE_FILE exit with code 3 at start while this file exists (a server that cannot start)
//   TEST_SERVER_SILENT=1    never answer initialize (a server that hangs at connect)
//   TEST_SERVER_PAGE_SIZE   list tools in pages of this size, with nextCursor
//   TEST_SERVER_CALL_LOG    append each called tool's name to the file when the call arrives (so a test
//                           can wait for a call to be under way)
//   TEST_SERVER_ODD_TOOLS=1 also list tools shaped as some published servers list them: no inputSchema,
//                           an inputSchema without type, output schemas that do not compile or are not
//                           objects, a tool without a name, a second `echo`, and `mismatch`, whose
//                           structuredContent does not match its (valid) outputSchema
//   TEST_SERVER_NO_TOOLS=1  a server of prompts only: no tools capability, tools/list is "method not found"
import fs from "node:fs";

const env = process.env;
if (env.TEST_SERVER_START_LOG) fs.appendFileSync(env.TEST_SERVER_START_LOG, `${process.pid}\n`);
if (env.TEST_SERVER_REFUSE_FILE && fs.existsSync(env.TEST_SERVER_REFUSE_FILE)) {
  process.stderr.write("test-server: refusing to start (refuse file present)\n");
  process.exit(3);
}
if (env.TEST_SERVER_SILENT === "1") {
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else if (env.TEST_SERVER_NO_TOOLS === "1") {
  await startWithoutTools();
} else {
  await start();
}

async function start() {
  // Loaded here, not at the top: the start log above is written before the SDK loads.
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const objectSchema = (properties = {}, required = []) => ({ type: "object", properties, required });
  const tools = [
    { name: "echo", description: "Echoes text back, as text and as structured content.", inputSchema: objectSchema({ text: { type: "string" } }, ["text"]), outputSchema: objectSchema({ echoed: { type: "string" } }, ["echoed"]) },
    { name: "slow", description: "Answers after `ms` milliseconds.", inputSchema: objectSchema({ ms: { type: "number" } }, ["ms"]) },
    { name: "hang", description: "Never answers.", inputSchema: objectSchema() },
    { name: "fail", description: "Returns a tool error (isError) and counts its calls.", inputSchema: objectSchema() },
    { name: "exit", description: "Exits the process mid-call with `code`.", inputSchema: objectSchema({ code: { type: "number" } }) },
    { name: "whoami", description: "The pid and the environment this process sees.", inputSchema: objectSchema() },
    { name: "add_tool", description: "Adds a tool named `name` and announces notifications/tools/list_changed.", inputSchema: objectSchema({ name: { type: "string" } }, ["name"]) },
  ];
  if (env.TEST_SERVER_ODD_TOOLS === "1") {
    const numberOut = objectSchema({ n: { type: "number" } }, ["n"]);
    tools.push(
      { name: "bare", description: "Lists no inputSchema at all." },
      { name: "untyped", description: "An inputSchema without type.", inputSchema: { properties: { q: { type: "string" } }, required: ["q"] } },
      { name: "pattern_out", description: "An outputSchema whose pattern is another regex dialect.", inputSchema: objectSchema(), outputSchema: objectSchema({ id: { type: "string", pattern: "^(?P<id>[a-z]+)$" } }) },
      { name: "dangling_ref_out", description: "An outputSchema with a $ref to nothing.", inputSchema: objectSchema(), outputSchema: objectSchema({ item: { $ref: "#/definitions/Missing" } }) },
      { name: "array_out", description: "An outputSchema that is not an object schema.", inputSchema: objectSchema(), outputSchema: { type: "array", items: { type: "string" } }, annotations: { readOnlyHint: "yes" } },
      { description: "A tool without a name.", inputSchema: objectSchema() },
      { name: "echo", description: "A second tool named echo.", inputSchema: objectSchema() },
      { name: "mismatch", description: "structuredContent that does not match its outputSchema.", inputSchema: objectSchema(), outputSchema: numberOut },
    );
  }
  let failures = 0;
  const server = new Server({ name: "thinktank-test-server", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const pageSize = Number(env.TEST_SERVER_PAGE_SIZE ?? 0);
    if (!pageSize) return { tools };
    const offset = Number(request.params?.cursor ?? 0);
    const next = offset + pageSize;
    return { tools: tools.slice(offset, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (env.TEST_SERVER_CALL_LOG) fs.appendFileSync(env.TEST_SERVER_CALL_LOG, `${request.params.name}\n`);
    const text = (value) => ({ content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }] });
    switch (request.params.name) {
      case "echo":
        return { ...text(String(args.text)), structuredContent: { echoed: String(args.text) } };
      case "slow":
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
        return text(`slept ${Number(args.ms)} ms`);
      case "hang":
        return new Promise(() => {});
      case "fail":
        failures += 1;
        return { ...text(`failure number ${failures}`), isError: true };
      case "exit":
        process.stderr.write("test-server: exiting on request\n");
        process.exit(Number(args.code ?? 1));
        return text("unreachable");
      case "whoami":
        return { ...text(String(process.pid)), structuredContent: { pid: process.pid, env: { ...process.env } } };
      case "add_tool":
        tools.push({ name: String(args.name), description: "Added at run time.", inputSchema: objectSchema() });
        await server.sendToolListChanged();
        return text(`added ${String(args.name)}`);
      case "mismatch":
        return { ...text("one"), structuredContent: { n: "one" } };
      default: {
        const added = tools.find((tool) => tool.name === request.params.name);
        if (added) return text(`called ${added.name}`);
        return { ...text(`unknown tool ${request.params.name}`), isError: true };
      }
    }
  });

  await server.connect(new StdioServerTransport());
}

async function startWithoutTools() {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { ListPromptsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const server = new Server({ name: "thinktank-test-prompts", version: "1.0.0" }, { capabilities: { prompts: {} } });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [{ name: "summarize", description: "Summarize a text." }] }));
  await server.connect(new StdioServerTransport());
}
