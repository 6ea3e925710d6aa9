// Which public stdio MCP servers still work in the sandbox (docs/mcp-manager.md, "Measured").
//
//   npx tsx --conditions=development bench/sandboxed-servers-eval.ts [--dir /tmp/mcp-eval] [--allow-private 203.0.113.0/24] [--only <text>] [--json]
//
// The servers are npm packages installed by hand into a scratch folder outside the repository
// (`npm install <package>...` in --dir); those not installed are skipped. Each one is started twice
// through the MCP manager, as the agent starts it: confined on the host, and with `sandbox: true`
// (bubblewrap) and no network. Each time it records whether it connects, how many tools it lists,
// and whether one harmless call answers, with the reason where it fails. The corpus's stdio servers
// (../shared/corpus, .mcp.json files) run as written: `npx -y <package>`, sandboxed with the npm
// registry as their only host, twice (the second start must not fetch again), then with no network.
// Playwright is given the host's chromium binary itself (Debian's /usr/bin/chromium is a shell
// script that reads /etc/chromium.d, which the sandbox's synthetic /etc does not have). --only runs
// the servers whose package name holds the text (and no corpus server).
// --allow-private lists addresses the egress proxy may reach anyway (sandbox.network.allowed_private),
// for a registry mirror on a private or reserved address.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { hostConfinementFor, loadConfig, type Config } from "@thinktank/core";
import { McpManager, type McpServerEntry } from "@thinktank/mcp";
import { createSandboxExecutor, createStdioServerSandbox, type SandboxExecutor } from "@thinktank/sandbox";

interface EvalServer {
  /** The npm package and the bin it runs. */
  readonly package: string;
  readonly bin?: string;
  /** `{home}` is the server's home: a scratch folder on the host, /mnt/user-data/workspace in the sandbox. */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Files written into its home first. */
  readonly files?: Readonly<Record<string, string>>;
  readonly call: { readonly tool: string; readonly args: Record<string, unknown> };
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: dummy, cluster: { server: "https://127.0.0.1:6443" } }]
contexts: [{ name: dummy, context: { cluster: dummy, user: dummy } }]
current-context: dummy
users: [{ name: dummy, user: { token: dummy } }]
`;

const home = "{home}";
/** The public npm servers measured: the reference servers and well-known ones that start without credentials (or with dummy ones). */
const servers: readonly EvalServer[] = [
  { package: "@modelcontextprotocol/server-everything", call: { tool: "echo", args: { message: "hi" } } },
  { package: "@modelcontextprotocol/server-filesystem", args: [home], call: { tool: "list_allowed_directories", args: {} } },
  { package: "@modelcontextprotocol/server-memory", env: { MEMORY_FILE_PATH: `${home}/memory.jsonl` }, call: { tool: "read_graph", args: {} } },
  { package: "@modelcontextprotocol/server-sequential-thinking", call: { tool: "sequentialthinking", args: { thought: "one step", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 } } },
  { package: "@playwright/mcp", args: ["--headless", "--isolated", "--browser", "chromium", "--executable-path", "/usr/lib/chromium/chromium", "--no-sandbox"], call: { tool: "browser_navigate", args: { url: "data:text/html,<title>t</title>" } } },
  { package: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: "ntn_dummy" }, call: { tool: "API-get-self", args: {} } },
  { package: "@cyanheads/git-mcp-server", env: { MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error" }, call: { tool: "git_set_working_dir", args: { path: home, validateGitRepo: false } } },
  { package: "@bytebase/dbhub", args: ["--transport", "stdio", "--dsn", `sqlite://${home}/eval.db`], call: { tool: "execute_sql", args: { sql: "select 1 as one" } } },
  { package: "@wonderwhy-er/desktop-commander", call: { tool: "list_directory", args: { path: home } } },
  { package: "time-mcp", call: { tool: "current_time", args: { format: "YYYY-MM-DD HH:mm:ss" } } },
  { package: "@executeautomation/database-server", args: [`${home}/eval.sqlite`], call: { tool: "list_tables", args: {} } },
  { package: "@eslint/mcp", files: { "eval.js": "const x = 1;\n", "eslint.config.mjs": "export default [{ rules: { 'no-unused-vars': 'warn' } }];\n" }, call: { tool: "lint-files", args: { filePaths: [`${home}/eval.js`] } } },
  { package: "@mastra/mcp-docs-server", call: { tool: "mastraDocs", args: { paths: ["index.mdx"] } } },
  { package: "@upstash/context7-mcp", call: { tool: "resolve-library-id", args: { libraryName: "React", query: "hooks" } } },
  { package: "duckduckgo-mcp-server", call: { tool: "duckduckgo_web_search", args: { query: "thinktank", count: 1 } } },
  { package: "@antv/mcp-server-chart", call: { tool: "generate_pie_chart", args: { data: [{ category: "a", value: 1 }] } } },
  { package: "mcp-server-kubernetes", env: { KUBECONFIG: `${home}/kubeconfig` }, files: { kubeconfig }, call: { tool: "ping", args: {} } },
];

interface Outcome {
  readonly connects: boolean;
  readonly tools: number;
  readonly call: "ok" | "error" | "no call";
  readonly reason?: string;
  /** The start of a call's answer (--json). */
  readonly answer?: string;
  readonly ms: number;
  /** Connections it made through the egress proxy (sandboxed), allowed and refused. */
  readonly egress?: { readonly allowed: number; readonly refused: number };
}

const { values } = parseArgs({ options: { dir: { type: "string", default: "/tmp/mcp-eval" }, "allow-private": { type: "string", multiple: true, default: [] }, json: { type: "boolean", default: false }, only: { type: "string" } } });
const evalDir = path.resolve(values.dir as string);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tt-sandboxed-eval-"));
fs.chmodSync(scratch, 0o755);
const project = path.join(scratch, "project");
fs.mkdirSync(project);
fs.writeFileSync(path.join(project, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
const allowPrivate = (values["allow-private"] as string[]).map((address) => JSON.stringify(address)).join(", ");
fs.writeFileSync(path.join(project, "config.yaml"), ["data_dir: data", "sandbox:", "  backend: bubblewrap", "  network:", `    allowed_private: [${allowPrivate}]`, "mcp:", "  connect_timeout_ms: 120000", "  call_timeout_ms: 60000", "  retries: 0", ""].join("\n"));
const config = loadConfig({ cwd: project, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: path.join(scratch, "host-home") } });
/** Egress connections per server label (`mcp <name>`), counted from the executor's log. */
const egress = new Map<string, { allowed: number; refused: number }>();
const count = (details: Record<string, unknown>, allowed: boolean): void => {
  const label = (details.egress as { label?: string } | undefined)?.label;
  if (!label) return;
  const counts = egress.get(label) ?? { allowed: 0, refused: 0 };
  counts[allowed ? "allowed" : "refused"] += 1;
  egress.set(label, counts);
};
const executor = createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}), logger: { info: (details) => count(details, true), warn: (details) => count(details, false) } });
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** One start of one server through a fresh manager: connect, list, one call; then stopped. */
async function measure(config: Config, executor: SandboxExecutor, name: string, entry: McpServerEntry, call: EvalServer["call"] | undefined): Promise<Outcome> {
  const started = performance.now();
  egress.delete(`mcp ${name}`);
  const manager = new McpManager({ mcp: config.mcp, env: config.env, hostConfinement: hostConfinementFor(config), stdioSandbox: createStdioServerSandbox(config, { executor }), writeCatalog: false }, { [name]: entry });
  const ms = (): number => Math.round(performance.now() - started);
  const oneLine = (text: string): string => text.replace(/\s+/g, " ").slice(0, 220);
  try {
    const status = await manager.connect(name);
    if (status.state !== "connected") return { connects: false, tools: 0, call: "no call", reason: oneLine(status.reason ?? status.state), ms: ms() };
    const tools = await manager.listTools(name);
    if (!call) return { connects: true, tools: tools.length, call: "no call", ms: ms() };
    if (!tools.some((tool) => tool.name === call.tool)) return { connects: true, tools: tools.length, call: "no call", reason: `no tool ${call.tool}`, ms: ms() };
    try {
      const result = await manager.callTool(name, call.tool, call.args);
      const text = ((result.content as { text?: string }[] | undefined) ?? []).map((block) => block.text ?? "").join(" ");
      return { connects: true, tools: tools.length, call: result.isError ? "error" : "ok", ...(result.isError ? { reason: oneLine(text) } : { answer: oneLine(text).slice(0, 120) }), ms: ms() };
    } catch (error) {
      return { connects: true, tools: tools.length, call: "error", reason: oneLine((error as Error).message), ms: ms() };
    }
  } finally {
    await manager.close();
  }
}

/** `measure`, with the egress connections the start made. */
async function measureWithEgress(...args: Parameters<typeof measure>): Promise<Outcome> {
  const outcome = await measure(...args);
  const counts = egress.get(`mcp ${args[2]}`);
  return counts ? { ...outcome, egress: counts } : outcome;
}

function binOf(packageName: string, wanted: string | undefined): string | undefined {
  const folder = path.join(evalDir, "node_modules", packageName);
  if (!fs.existsSync(path.join(folder, "package.json"))) return undefined;
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin ? (wanted ? manifest.bin[wanted] : Object.values(manifest.bin)[0]) : undefined;
  return bin ? path.join(folder, bin) : undefined;
}

const rows: { server: string; host?: Outcome; sandboxed?: Outcome; skipped?: string }[] = [];
const only = values.only as string | undefined;
for (const server of servers.filter((candidate) => !only || candidate.package.includes(only))) {
  const bin = binOf(server.package, server.bin);
  if (!bin) {
    rows.push({ server: server.package, skipped: `not installed in ${evalDir}` });
    continue;
  }
  const hostHome = path.join(scratch, "host-homes", server.package.replaceAll("/", "__"));
  fs.mkdirSync(hostHome, { recursive: true });
  for (const [file, text] of Object.entries(server.files ?? {})) fs.writeFileSync(path.join(hostHome, file), text);
  const entryFor = (place: string): McpServerEntry => ({
    command: "node",
    args: [bin, ...(server.args ?? []).map((arg) => arg.replaceAll(home, place))],
    env: Object.fromEntries(Object.entries(server.env ?? {}).map(([key, value]) => [key, value.replaceAll(home, place)])),
    cwd: evalDir,
  });
  const call = (place: string): EvalServer["call"] => JSON.parse(JSON.stringify(server.call).replaceAll(home, place)) as EvalServer["call"];
  log(`${server.package}: on the host`);
  const host = await measure(config, executor, "eval", entryFor(hostHome), call(hostHome));
  log(`${server.package}: sandboxed`);
  const sandboxHome = "/mnt/user-data/workspace";
  const homeOnHost = path.join(config.data_dir, "mcp-homes", "sandboxed");
  fs.rmSync(homeOnHost, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(homeOnHost), { recursive: true, mode: 0o700 });
  fs.mkdirSync(homeOnHost, { mode: 0o700 });
  for (const [file, text] of Object.entries(server.files ?? {})) fs.writeFileSync(path.join(homeOnHost, file), text);
  const sandboxed = await measure(config, executor, "sandboxed", { ...entryFor(sandboxHome), sandbox: true }, call(sandboxHome));
  rows.push({ server: server.package, host, sandboxed });
}

/** The corpus's stdio servers, run as their plugin writes them (npx), sandboxed with the registry as their only host. */
const corpusDir = process.env.THINKTANK_CORPUS ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../shared/corpus");
const corpusRows: { file: string; server: string; starts: { network: string; outcome: Outcome }[] }[] = [];
for (const file of fs.existsSync(corpusDir) && !only ? mcpFiles(corpusDir) : []) {
  const document = JSON.parse(fs.readFileSync(file, "utf8")) as { mcpServers?: Record<string, McpServerEntry> };
  for (const [name, entry] of Object.entries(document.mcpServers ?? document)) {
    if (!entry || typeof entry !== "object" || typeof entry.command !== "string") continue;
    const starts: { network: string; outcome: Outcome }[] = [];
    for (const network of [["registry.npmjs.org"], ["registry.npmjs.org"], []]) {
      log(`corpus ${name}: npx, network ${network.join(",") || "none"}`);
      starts.push({ network: network.join(",") || "none", outcome: await measureWithEgress(config, executor, `corpus-${name}`, { command: entry.command, args: entry.args ?? [], ...(entry.env ? { env: entry.env } : {}), sandbox: true, network }, undefined) });
    }
    corpusRows.push({ file: path.relative(corpusDir, file), server: name, starts });
  }
}
await executor.close();
fs.rmSync(scratch, { recursive: true, force: true });

if (values.json) {
  process.stdout.write(`${JSON.stringify({ servers: rows, corpus: corpusRows }, null, 2)}\n`);
} else {
  const cell = (outcome: Outcome | undefined): string => (outcome ? `${outcome.connects ? `yes, ${outcome.tools} tools` : "no"}; call ${outcome.call}` : "");
  process.stdout.write("| server | on the host (confined) | sandboxed (no network) | why not, sandboxed |\n|---|---|---|---|\n");
  for (const row of rows) process.stdout.write(`| ${row.server} | ${row.skipped ?? cell(row.host)} | ${row.skipped ? "" : cell(row.sandboxed)} | ${row.sandboxed?.reason ?? ""} |\n`);
  process.stdout.write("\n| corpus server | start | network | connects | ms | proxy connections | reason |\n|---|---|---|---|---|---|---|\n");
  for (const row of corpusRows) {
    row.starts.forEach((start, index) => {
      const { outcome } = start;
      const proxied = outcome.egress ? `${outcome.egress.allowed} allowed, ${outcome.egress.refused} refused` : "none";
      process.stdout.write(`| ${row.file} ${row.server} | ${index + 1} | ${start.network} | ${outcome.connects ? `yes, ${outcome.tools} tools` : "no"} | ${outcome.ms} | ${proxied} | ${outcome.reason ?? ""} |\n`);
    });
  }
}

function mcpFiles(root: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") found.push(...mcpFiles(full));
    else if (entry.name === ".mcp.json") found.push(full);
  }
  return found.sort();
}
