// Issue 24, "Secrets only by declaration" and "Killed whole", end to end: a real agent server process
// holding THINKTANK_API_KEY starts a trusted (registered) script tool and a stdio MCP server that each
// report what they can see of it. Neither finds the key in any /proc/<pid>/environ, attaches ptrace to
// the agent, or reads the data folder or extensions_config.json; the tool still reads a host file, and
// what each left running is gone when its call (the tool) or the server (the MCP server) ends.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { Client } from "@langchain/langgraph-sdk";
import { findExecutable, HostConfinement, loadConfig } from "@thinktank/core";
import { hostProbeScript, probeMcpServerScript, processesWithMarker, type HostProbeReport } from "@thinktank/testing";
import { createToolsService } from "@thinktank/tools";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startAgentServer } from "../src/start-agent-server.js";
import { makeAgentFixture, type AgentFixture } from "./support/agent-fixture.js";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";

const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const pythonOnPath = findExecutable("python3", searchPath);
const python = pythonOnPath ? execFileSync(pythonOnPath, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim() : undefined;
/** What this machine offers (the agent finds the same): bubblewrap, unshare as root, a dedicated user as root, or none. */
const isolation = new HostConfinement({ searchPath }).info.isolation;
const secret = `tt-api-key-${crypto.randomUUID()}`;
const marker = (): string => `181.${Date.now() % 1e9}${crypto.randomInt(1e6)}`;
const toolLeft = marker();
const serverLeft = marker();

type Message = { type: string; name?: string; content: unknown };
const human = (content: string) => ({ messages: [{ type: "human", content }] });

/** The probe's report inside a tool message: a registered tool's envelope, or an MCP tool's text block. */
function reportIn(content: unknown): HostProbeReport {
  let value = typeof content === "string" ? (JSON.parse(content) as unknown) : content;
  if (Array.isArray(value)) value = value.find((block: { type?: string }) => block.type === "text");
  if ((value as { type?: string }).type === "text") value = JSON.parse((value as { text: string }).text);
  const report = ((value as { data?: HostProbeReport }).data ?? value) as HostProbeReport;
  if (!Array.isArray(report.needleFoundIn)) throw new Error(`not a probe report: ${JSON.stringify(content).slice(0, 500)}`);
  return report;
}

describe.skipIf(isolation === "none" || !python)("programs the agent server starts on the host", { timeout: 240_000 }, () => {
  let made: AgentFixture;
  let agent: AgentProcess;
  let client: Client;
  let reads: { data: string; database: string; extensions: string; outside: string };

  beforeAll(async () => {
    made = await makeAgentFixture({
      configYaml: ["data_dir: data", "log:", "  level: warn", "code_execution:", "  mode: direct", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n"),
      env: { THINKTANK_API_KEY: secret },
    });
    fs.chmodSync(made.dir, 0o755);
    reads = {
      data: path.join(made.dir, "data"),
      database: path.join(made.dir, "data", "threads.sqlite"),
      extensions: path.join(made.dir, "extensions_config.json"),
      outside: path.join(made.dir, "host-notes.txt"),
    };
    fs.writeFileSync(reads.outside, "host notes");
    fs.writeFileSync(path.join(made.dir, "probe.py"), hostProbeScript);
    fs.writeFileSync(path.join(made.dir, "probe-server.mjs"), probeMcpServerScript);
    const request = (leave?: string) => JSON.stringify({ needle: secret, ptrace: ["{{match.1}}"], read: Object.values(reads), ...(leave ? { leave } : {}) });
    fs.writeFileSync(
      path.join(made.dir, "script.yaml"),
      [
        "name: confined host programs",
        "rules:",
        "  - id: tool",
        `    when: { last_human: "^probe tool (\\\\d+)", step: 0, tool_available: probe }`,
        `    tool_calls: [{ name: probe, args: ${request(toolLeft)} }]`,
        "  - id: server",
        `    when: { last_human: "^probe server (\\\\d+)", step: 0, tool_available: probe__probe }`,
        `    tool_calls: [{ name: probe__probe, args: ${request()} }]`,
        "  - id: tool-done",
        "    when: { last_tool_name: probe }",
        '    reply: "probed"',
        "  - id: server-done",
        "    when: { last_tool_name: probe__probe }",
        '    reply: "probed"',
        "fallback:",
        '  reply: "?"',
        "",
      ].join("\n"),
    );
    const entry = { command: process.execPath, args: [path.join(made.dir, "probe-server.mjs")], env: { PROBE_SCRIPT: path.join(made.dir, "probe.py"), PROBE_PYTHON: python as string, PROBE_LEAVE: serverLeft } };
    fs.writeFileSync(reads.extensions, `${JSON.stringify({ mcpServers: { probe: entry }, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`);
    // Registered as an operator does (POST /api/tools): a trusted tool, run on the host.
    const tools = createToolsService(loadConfig({ env: made.env, cwd: made.dir }));
    await tools.registry.register({ definition: { name: "probe", description: "Reports what it can see of the agent.", input_schema: { type: "object" }, runtime: "python", script: hostProbeScript } });
    agent = await startAgentProcess(made.env);
    client = new Client({ apiUrl: agent.url, apiKey: secret, callerOptions: { maxRetries: 0 } });
  }, 240_000);

  afterAll(async () => {
    await agent?.stop();
    made?.cleanup();
  });

  async function probe(what: "tool" | "server"): Promise<HostProbeReport> {
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, "lead_agent", { input: human(`probe ${what} ${agent.child.pid}`) })) as { messages: Message[] };
    const result = values.messages.find((message) => message.type === "tool");
    if (!result) throw new Error(`no tool message: ${JSON.stringify(values.messages)}`);
    return reportIn(result.content);
  }

  function expectNothingOfTheAgent(report: HostProbeReport): void {
    const agentPid = agent.child.pid as number;
    expect(report.needleFoundIn).toEqual([]);
    expect(report.ptrace[String(agentPid)]).toBeDefined();
    expect(report.ptrace[String(agentPid)]).not.toBe("attached");
    expect(report.reads[reads.database]?.ok).toBe(false);
    if (isolation === "pid-namespace") {
      expect(report.visiblePids).not.toContain(agentPid);
      expect(report.reads[reads.data]).toEqual({ ok: true, entries: [] });
      expect(report.reads[reads.extensions]).toMatchObject({ bytes: 0 });
    } else {
      expect(report.reads[reads.data]?.ok).toBe(false);
    }
  }

  it("says how it confines them in GET /healthz, without host paths", async () => {
    const health = (await (await fetch(`${agent.url}/healthz`)).json()) as { host_programs: { isolation: string; reason: string } };
    expect(health.host_programs).toEqual({ isolation, reason: expect.any(String) });
    expect(JSON.stringify(health)).not.toContain(made.dir);
    expect(JSON.stringify(health)).not.toContain(searchPath);
  });

  it("a trusted script tool reads a host file but nothing of the agent, and what it left is gone after the call", async () => {
    const report = await probe("tool");
    expectNothingOfTheAgent(report);
    expect(report.reads[reads.outside]).toEqual({ ok: true, bytes: 10 });
    await vi.waitFor(() => expect(processesWithMarker(toolLeft)).toEqual([]), { timeout: 10_000, interval: 50 });
  });

  it("a stdio MCP server sees nothing of the agent, and its children die with it when the agent stops", async () => {
    const report = await probe("server");
    expectNothingOfTheAgent(report);
    if (isolation === "pid-namespace") expect(processesWithMarker(serverLeft)).toHaveLength(1);
    await agent.stop();
    await vi.waitFor(() => expect(processesWithMarker(serverLeft)).toEqual([]), { timeout: 15_000, interval: 50 });
  });
});

describe("an agent server whose host programs nothing confines", { timeout: 180_000 }, () => {
  it("says so once at start-up, and in GET /healthz without host paths", async () => {
    const made = await makeAgentFixture();
    let stdout = "";
    let stderr = "";
    const collect = (write: (text: string) => void) => new Writable({ write: (chunk: Buffer, _encoding, done) => (write(chunk.toString()), done()) });
    // Forced through the option: this machine may well offer bubblewrap.
    const started = await startAgentServer({
      env: { ...made.env, AGENT_PORT: "0" },
      cwd: made.dir,
      stdout: collect((text) => (stdout += text)),
      stderr: collect((text) => (stderr += text)),
      deps: () => ({ logger: false, hostConfinement: new HostConfinement({ mechanisms: [], searchPath: "/opt/secret-tools/bin" }) }),
    });
    try {
      if (!started.ok) throw new Error(`the agent did not start: ${stderr}`);
      expect(stderr.match(/host programs are NOT confined/g)).toHaveLength(1);
      expect(stdout).not.toMatch(/host programs/);
      const health = (await (await fetch(`${started.url}/healthz`)).json()) as { host_programs: unknown };
      expect(health.host_programs).toEqual({ isolation: "none", reason: expect.stringMatching(/turned off/) });
      expect(JSON.stringify(health)).not.toContain("/opt/secret-tools");
    } finally {
      if (started.ok) await started.server.close();
      made.cleanup();
    }
  });
});
