// A small MCP server for protocol-era tests, made with the real SDKs:
//   --sdk v1            @modelcontextprotocol/sdk 1.32 (the 2025 era only: initialize)
//   --sdk v2 --era both @modelcontextprotocol/server 2.4 serving both eras (server/discover and initialize)
//   --sdk v2 --era modern   the same, 2026-07-28 only (a 2025 initialize is refused with -32022)
//   --sdk v1 --era neither  the v1 server answering initialize with a revision nobody speaks ("2099-01-01")
// over stdio (default) or streamable HTTP (--http: prints "listening <url>" on stdout).
// Tools: echo(text) answers "<era>:<text>"; confirm(action) asks for confirmation with an
// input_required elicitation (2026-07-28) and answers what came back; with --extra-tool FILE a
// tool `extra` is listed while FILE exists. --ttl MS: the tools/list ttlMs (2026-07-28). With
// --notes FILE a tool `note(text)` appends a line to FILE (a side effect a test can count).
import fs from "node:fs";
import http from "node:http";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const sdk = option("--sdk", "v2");
const era = option("--era", "both");
const overHttp = args.includes("--http");
const ttl = option("--ttl");
const extraFile = option("--extra-tool");
const notesFile = option("--notes");

if (sdk === "v1") await serveV1();
else await serveV2();

async function serveV1() {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { InitializeRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const { z } = await import("zod");
  const make = () => {
    const server = new McpServer({ name: "era-test-v1", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("echo", { description: "Echoes text.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `legacy:${text}` }] }));
    if (era === "neither") {
      server.server.setRequestHandler(InitializeRequestSchema, () => ({ protocolVersion: "2099-01-01", capabilities: { tools: {} }, serverInfo: { name: "era-test-neither", version: "1.0.0" } }));
    }
    return server;
  };
  if (!overHttp) {
    await make().connect(new StdioServerTransport());
    return;
  }
  const sessions = new Map();
  const listener = http.createServer(async (req, res) => {
    const body = req.method === "POST" ? JSON.parse(await readBody(req)) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
      await make().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  listen(listener);
}

async function serveV2() {
  const { McpServer, inputRequired, acceptedContent, createMcpHandler } = await import("@modelcontextprotocol/server");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const { z } = await import("zod");
  const factory = (ctx) => {
    const server = new McpServer(
      { name: "era-test-v2", version: "1.0.0" },
      {
        capabilities: { tools: {} },
        ...(ttl !== undefined ? { cacheHints: { "tools/list": { ttlMs: Number(ttl), cacheScope: "public" } } } : {}),
      },
    );
    server.registerTool("echo", { description: "Echoes text.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `${ctx.era}:${text}` }] }));
    server.registerTool("confirm", { description: "Asks before doing an action.", inputSchema: { action: z.string() } }, async ({ action }, extra) => {
      const schema = z.object({ ok: z.boolean() });
      const answer = acceptedContent(extra.mcpReq.inputResponses, "ok", schema);
      if (!answer) {
        const declined = extra.mcpReq.inputResponses?.ok?.action;
        if (declined) return { content: [{ type: "text", text: `not done: ${declined}` }] };
        return inputRequired({ inputRequests: { ok: inputRequired.elicit({ message: `Really ${action}?`, requestedSchema: schema }) }, requestState: `asked:${action}` });
      }
      return { content: [{ type: "text", text: answer.ok ? `done: ${action} (state ${extra.mcpReq.requestState() ?? "none"})` : `not done: ${action}` }] };
    });
    if (notesFile) {
      server.registerTool("note", { description: "Appends a line to the notes file.", inputSchema: { text: z.string() } }, async ({ text }) => {
        fs.appendFileSync(notesFile, `${text}\n`);
        return { content: [{ type: "text", text: `noted: ${text}` }] };
      });
    }
    if (extraFile && fs.existsSync(extraFile)) server.registerTool("extra", { description: "Listed while the file exists." }, async () => ({ content: [{ type: "text", text: "extra" }] }));
    return server;
  };
  const strict = era === "modern";
  if (!overHttp) {
    serveStdio(factory, strict ? { legacy: "reject" } : {});
    return;
  }
  const handler = createMcpHandler(factory, strict ? { legacy: "reject" } : {});
  const listener = http.createServer(async (req, res) => {
    const body = req.method === "POST" || req.method === "DELETE" ? await readBody(req) : undefined;
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers, ...(body !== undefined && req.method === "POST" ? { body } : {}) });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  listen(listener);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function listen(listener) {
  listener.listen(0, "127.0.0.1", () => process.stdout.write(`listening http://127.0.0.1:${listener.address().port}/mcp\n`));
}
