// Issue 24's outside-style attack suite, end to end: a real gateway and a real agent server (one pair
// per sandbox backend) holding a unique THINKTANK_API_KEY and a fake model key; hostile packages
// written for this suite installed through the gateway as a user would (a .skill archive; a plugin
// zip with a skill, a stdio MCP server and a hook; a registered host tool), run through the
// LangGraph SDK with the scripted model, approvals answered through the SDK. Every script does its
// job (counting words) and tries to write outside its folder, read every environ, ptrace the agent,
// reach a loopback listener directly, through the proxy undeclared, and through a declared name that
// resolves to it, leave setsid and double-forked children, and set setuid bits. Each attempt must
// fail, the job must be done, the refused connections must be in the execution log, the listener
// must see nothing, nothing with the run's marker may survive, and no secret may show anywhere.
// What no backend takes part in (the registered host tool; plugins.host_programs: deny) runs on one.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HostConfinement } from "@thinktank/core";
import { missingReason, needs, processesWithMarker } from "@thinktank/testing";
import { describe, expect, it, vi } from "vitest";
import { useAttackStack, type AttackStack } from "./attack-stack.js";
import {
  dataFolderText,
  expectNoSecrets,
  expectRefusedInRecord,
  expectSandboxedAttacksFailed,
  plantedFiles,
  reportOf,
  setuidFiles,
  threadText,
  toolMessages,
  walk,
  type Values,
} from "./attack-checks.js";
import { attackInputSchema, attackScripts, declaredNetwork, pluginHooks, pluginZip, runtimes, skillArchive, type Runtime } from "./hostile-packages.js";

type Backend = "deno" | "bubblewrap";
const text = "one two three four five";
/** A sleep length unique to one attack: the children it leaves carry it, the files it plants are named after it. */
const newMarker = (): string => `300.${Date.now() % 1e6}${crypto.randomInt(1e6)}`;
const offered = (backend: Backend): readonly Runtime[] => (backend === "bubblewrap" ? runtimes : ["python", "node"]);
/**
 * Where what no sandbox backend takes part in runs once: a registered (trusted) tool runs on the host
 * under HostConfinement, and plugins.host_programs: deny refuses a plugin's programs before any backend
 * is asked (hostProgramsDenial, PluginHooks.from, resolveServerConfig). Bubblewrap where the machine
 * has it (CI), else deno: one stack fewer per run.
 */
const onceBackend: Backend = missingReason("bubblewrap") === undefined ? "bubblewrap" : "deno";

/** The model: "attack-skill|attack-plugin <marker> <port> <agent pid> <project>" enters the skill and calls every offered tool at once; "probe-host <marker> <agent pid> <project>" calls the registered tool. */
function modelScript(backend: Backend): unknown {
  const calls = (prefix: string) =>
    offered(backend).map((runtime) => ({ name: `${prefix}_${runtime}`, args: { text, marker: "{{match.1}}", port: "{{match.2}}", agent_pid: "{{match.3}}", project: "{{match.4}}" } }));
  const attack = (word: string, skill: string, prefix: string) => [
    { when: { last_human: `^${word} `, step: 0 }, tool_calls: [{ name: "view_skill", args: { name: skill } }] },
    {
      when: {
        last_human: `^${word} (\\S+) (\\d+) (\\d+) (\\S+)`,
        last_tool_name: "view_skill",
        tool_available: `${prefix}_python`,
        // On deno the shell tool is not offered, and the specialist prompt says why.
        ...(backend === "deno" ? { system: `${prefix}_shell (TOOL_UNAVAILABLE: ` } : {}),
      },
      tool_calls: calls(prefix),
    },
    { when: { last_human: `^${word}`, after_tool: true }, reply: `${word} done` },
  ];
  return {
    name: "third-party attacks",
    rules: [
      ...attack("attack-skill", "tally", "tally"),
      ...attack("attack-plugin", "ptally", "ptally"),
      {
        when: { last_human: "^probe-host (\\S+) (\\d+) (\\S+)", step: 0, tool_available: "host_probe" },
        tool_calls: [{ name: "host_probe", args: { text, marker: "{{match.1}}", port: "0", agent_pid: "{{match.2}}", project: "{{match.3}}" } }],
      },
      { when: { last_human: "^probe-host", after_tool: true }, reply: "probe-host done" },
      { when: { last_human: "^read-file (\\S+)", step: 0 }, tool_calls: [{ name: "read_file", args: { path: "{{match.1}}" } }] },
      { when: { last_human: "^read-file", after_tool: true }, reply: "read-file done" },
    ],
    fallback: { reply: "nothing to do" },
  };
}

const human = (content: string) => ({ messages: [{ type: "human", content }] });

/** Sends an attack message, expects the approval interrupt for every offered tool, approves all, and answers the thread and its final values. */
async function attackThroughApproval(stack: AttackStack, message: string, tools: readonly string[]): Promise<{ threadId: string; values: Values; paused: Values }> {
  const threadId = (await stack.client.threads.create()).thread_id;
  const paused = (await stack.client.runs.wait(threadId, "lead_agent", { input: human(message) })) as Values;
  const requests = paused.__interrupt__?.[0]?.value.action_requests ?? [];
  expect(requests.map((request) => request.name), JSON.stringify(paused).slice(0, 2000)).toEqual(tools);
  // Nothing ran before the answer.
  for (const tool of tools) expect((await stack.request("GET", `/api/tools/${tool}/executions`)).body.executions).toEqual([]);
  const values = (await stack.client.runs.wait(threadId, "lead_agent", { command: { resume: { decisions: requests.map(() => ({ type: "approve" })) } } })) as Values;
  return { threadId, values, paused };
}

function attackSuite(backend: Backend): void {
  const stack = useAttackStack({ backend, hostPrograms: "allow", script: () => modelScript(backend) });
  const agentPid = () => stack.agent.child.pid as number;
  const projectDir = () => stack.project.dir;

  /** How GET lists a hostile skill's tools: untrusted, sandboxed, asked per thread, and on deno the shell one unavailable with the reason. */
  const listedTools = (skill: string, prefix: string) =>
    runtimes.map((runtime) => ({
      skill,
      name: `${prefix}_${runtime}`,
      runtime,
      script: expect.any(String),
      network: declaredNetwork(stack.listener.port),
      env: [],
      trusted: false,
      sandboxed: true,
      approval: "per-thread",
      ...(backend === "deno" && runtime === "shell" ? { available: false, reason: expect.stringContaining("runs no shell script file") } : { available: true }),
    }));

  /** The checks every attack through sandboxed script tools ends with. */
  async function expectAttackContained(threadId: string, values: Values, prefix: string, marker: string, roots: readonly string[]): Promise<void> {
    const messages = toolMessages(values);
    for (const runtime of offered(backend)) expectSandboxedAttacksFailed(reportOf(messages.get(`${prefix}_${runtime}`)), { backend, agentPid: agentPid() });
    await vi.waitFor(() => expect(processesWithMarker(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(stack.listener.connections).toEqual([]);
    expect(plantedFiles(marker, roots)).toEqual([]);
    expect(setuidFiles(projectDir())).toEqual([]);
    for (const runtime of offered(backend)) {
      const records = (await stack.request("GET", `/api/tools/${prefix}_${runtime}/executions`)).body.executions as Record<string, unknown>[];
      expect(records).toEqual([expect.objectContaining({ status: "success", sandboxed: true, source: "agent", thread_id: threadId })]);
      // Pyodide has no sockets: only its pyfetch calls went to the proxy, which are the same four.
      expectRefusedInRecord(records[0], stack.listener.port);
    }
    const executions = await Promise.all(offered(backend).map(async (runtime) => JSON.stringify((await stack.request("GET", `/api/tools/${prefix}_${runtime}/executions`)).body)));
    expectNoSecrets(stack, "the thread", await threadText(stack.client, threadId));
    expectNoSecrets(stack, "the executions", executions.join("\n"));
    expectNoSecrets(stack, "the data folder's logs and workspaces", dataFolderText(projectDir()));
  }

  it("a .skill archive: the install answer and GET list its script tools (untrusted, sandboxed, asked per thread) before anything runs", async () => {
    const installed = await stack.upload("/api/skills/install", "tally.skill", skillArchive("tally", "tally", stack.listener.port));
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const expected = listedTools("custom:tally", "tally");
    expect(installed.body).toMatchObject({ identity: "custom:tally", trusted: false, script_tools: expected, warnings: expect.arrayContaining([expect.stringContaining("trusted")]) });
    expect((await stack.request("GET", "/api/skills/tally")).body).toMatchObject({ trusted: false, script_tools: expected });
  });

  it(`a .skill archive: the first call interrupts for approval; approved, its ${offered(backend).join(", ")} tools count the words and every attack fails`, async () => {
    const marker = newMarker();
    const tools = offered(backend).map((runtime) => `tally_${runtime}`);
    const { threadId, values, paused } = await attackThroughApproval(stack, `attack-skill ${marker} ${stack.listener.port} ${agentPid()} ${projectDir()}`, tools);
    for (const approval of paused.__interrupt__?.[0]?.value.tool_approvals ?? []) {
      expect(approval).toMatchObject({ skill: "custom:tally", trusted: false, network: declaredNetwork(stack.listener.port), policy: "untrusted" });
    }
    expect(values.messages.at(-1)?.content).toBe("attack-skill done");
    await expectAttackContained(threadId, values, "tally", marker, [projectDir()]);
  });

  it("a plugin zip: the install answer and GET list its script tools, its hook and its stdio server before anything runs", async () => {
    const serverMarker = newMarker();
    const installed = await stack.upload("/api/plugins/install", "intruder.zip", pluginZip({ name: "intruder", skill: "ptally", prefix: "ptally", port: stack.listener.port, serverMarker }));
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const body = installed.body as { trusted: boolean; script_tools: unknown[]; hooks: { handlers: unknown[] }; servers: unknown[] };
    expect(body.trusted).toBe(false);
    expect(body.script_tools).toEqual(listedTools("plugin:intruder:ptally", "ptally"));
    const command = pluginHooks.hooks.UserPromptSubmit[0]?.hooks[0]?.command;
    expect(body.hooks.handlers).toEqual([expect.objectContaining({ event: "UserPromptSubmit", type: "command", command, sandboxed: true, runs: true })]);
    expect(body.servers).toEqual([expect.objectContaining({ name: "intruder:tap" })]);
    expect((await stack.request("GET", "/api/plugins/intruder")).body).toMatchObject({ trusted: false, script_tools: body.script_tools, hooks: { handlers: body.hooks.handlers } });
  });

  it("a plugin zip (host_programs: allow): its hook runs sandboxed and fails its attacks; its tools interrupt, then fail theirs", async () => {
    const marker = newMarker();
    const tools = offered(backend).map((runtime) => `ptally_${runtime}`);
    const message = `attack-plugin ${marker} ${stack.listener.port} ${agentPid()} ${projectDir()} attack-hook ${marker} ${projectDir()}`;
    const { threadId, values, paused } = await attackThroughApproval(stack, message, tools);
    for (const approval of paused.__interrupt__?.[0]?.value.tool_approvals ?? []) {
      expect(approval).toMatchObject({ skill: "plugin:intruder:ptally", plugin: "intruder", trusted: false, network: declaredNetwork(stack.listener.port) });
    }
    expect(values.messages.at(-1)?.content).toBe("attack-plugin done");
    const context = values.messages[0]?.additional_kwargs?.hook_context as { event: string; plugin: string; text: string }[] | undefined;
    const hook = context?.find((entry) => entry.plugin === "intruder")?.text ?? "";
    expect(hook, JSON.stringify(values.messages[0])).toMatch(/^HOOK-REPORT /);
    // The plugin's folder is read-only. (On deno the simulated shell's writes outside its mounts land in its own
    // memory, so it believes them done: the host is checked below.)
    expect(hook).toContain("plugin=false");
    if (backend === "bubblewrap") expect(hook).toContain("data=false");
    const workspace = path.join(projectDir(), "data", "workspaces", threadId);
    await expectAttackContained(threadId, values, "ptally", marker, [projectDir()]);
    // It ran (its proof is in the thread's workspace), and the file it tried to make setuid there has no such
    // bit: refused, or set (mode=6755 as the hook saw it) and stripped by the walk after the run.
    const left = walk(workspace);
    expect(left.map((entry) => path.basename(entry.file))).toEqual(expect.arrayContaining([`HOOK-RAN-${marker}`, `suid-${marker}`]));
    const setuid = left.find((entry) => path.basename(entry.file) === `suid-${marker}`);
    expect(((setuid?.mode ?? 0) & 0o7777).toString(8)).toBe("755");
    // The links it left in the workspace (bubblewrap makes them; deno's simulated shell cannot) lead the
    // agent's own read_file, which runs on the host, nowhere outside the workspace.
    for (const link of [`leak-${marker}`, `notes-${marker}`]) {
      if (backend === "bubblewrap") expect(left.some((entry) => path.basename(entry.file) === link)).toBe(false); // a link, not a file
      if (backend === "bubblewrap") expect(fs.lstatSync(path.join(path.dirname(setuid?.file ?? workspace), link)).isSymbolicLink()).toBe(true);
      const read = (await stack.client.runs.wait(threadId, "lead_agent", { input: human(`read-file /mnt/user-data/workspace/${link}`) })) as Values;
      const result = toolMessages(read).get("read_file");
      expect(result?.status, JSON.stringify(result)).toBe("error");
      expect(String(result?.content)).toMatch(backend === "bubblewrap" ? /PATH_TRAVERSAL/ : /PATH_TRAVERSAL|NOT_FOUND|not found|no such/i);
    }
    expectNoSecrets(stack, "the thread after reading the links", await threadText(stack.client, threadId));
    expect(await threadText(stack.client, threadId)).not.toContain("host notes, outside the data folder");
  });

  if (backend === onceBackend) it.skipIf(new HostConfinement({ searchPath: process.env.PATH ?? "/usr/bin:/bin" }).info.isolation === "none")(
    "a registered (trusted) host tool reads a host file, but not the service's environ, memory or data folder, and leaves nothing running",
    async () => {
      const registered = await stack.request("POST", "/api/tools", { name: "host_probe", description: "Counts words; probes the host", input_schema: attackInputSchema, runtime: "python", script: attackScripts.python, timeout: 60 });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const marker = newMarker();
      const threadId = (await stack.client.threads.create()).thread_id;
      // Trusted: no approval asked.
      const values = (await stack.client.runs.wait(threadId, "lead_agent", { input: human(`probe-host ${marker} ${agentPid()} ${projectDir()}`) })) as Values;
      expect(values.__interrupt__ ?? []).toEqual([]);
      const report = reportOf(toolMessages(values).get("host_probe"));
      expect(report.words).toBe(5);
      expect(report.reads["host-notes.txt"]).toEqual({ ok: true, text: "host notes, outside the data folder\n" });
      for (const name of ["data/threads.sqlite", "data/oauth/secret.key", "data/oauth/servers"]) expect(report.reads[name]?.ok, `${name}: ${JSON.stringify(report.reads[name])}`).toBe(false);
      expect(report.reads["extensions_config.json"]).toSatisfy((read: { ok: boolean; text?: string }) => !read.ok || read.text === "");
      expect(report.ptrace[String(agentPid())]).not.toBe("attached");
      expect(report.children.started).toBe(true);
      await vi.waitFor(() => expect(processesWithMarker(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
      expect(plantedFiles(marker, [path.join(projectDir(), "data")]).filter((file) => file.startsWith(projectDir()))).toEqual([]);
      expectNoSecrets(stack, "the registered tool's report", JSON.stringify(report));
      expectNoSecrets(stack, "the thread", await threadText(stack.client, threadId));
      const records = (await stack.request("GET", "/api/tools/host_probe/executions")).body.executions;
      expect(records).toEqual([expect.objectContaining({ status: "success", sandboxed: false })]);
    },
  );
}

/** The same plugin with plugins.host_programs: deny: listed as not running, and nothing of it runs. */
function denySuite(backend: Backend): void {
  const stack = useAttackStack({ backend, hostPrograms: "deny", script: () => modelScript(backend) });

  it("lists its stdio server denied, its script tools unavailable and its hook not run, each saying why; then none of them runs", async () => {
    const serverMarker = newMarker();
    const marker = newMarker();
    const installed = await stack.upload("/api/plugins/install", "intruder.zip", pluginZip({ name: "intruder", skill: "ptally", prefix: "ptally", port: stack.listener.port, serverMarker }));
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const denied = expect.stringContaining("host_programs is");
    const listing = {
      servers: [expect.objectContaining({ name: "intruder:tap", status: "denied", reason: denied })],
      script_tools: runtimes.map((runtime) => expect.objectContaining({ name: `ptally_${runtime}`, trusted: false, available: false, reason: expect.stringContaining("plugins.host_programs is deny") })),
      hooks: { executed: false, handlers: [expect.objectContaining({ event: "UserPromptSubmit", runs: false, reason: expect.stringContaining("plugins.host_programs is deny") })] },
    };
    expect(installed.body).toMatchObject(listing);
    expect((await stack.request("GET", "/api/plugins/intruder")).body).toMatchObject(listing);

    const threadId = (await stack.client.threads.create()).thread_id;
    const message = `attack-plugin ${marker} ${stack.listener.port} ${stack.agent.child.pid} ${stack.project.dir} attack-hook ${marker} ${stack.project.dir}`;
    const values = (await stack.client.runs.wait(threadId, "lead_agent", { input: human(message) })) as Values;
    // The skill's text loads; its tools are not offered, so nothing asks and nothing runs.
    expect(values.__interrupt__ ?? []).toEqual([]);
    expect([...toolMessages(values).keys()]).toEqual(["view_skill"]);
    expect(values.messages[0]?.additional_kwargs?.hook_context).toBeUndefined();
    for (const runtime of runtimes) expect((await stack.request("GET", `/api/tools/ptally_${runtime}/executions`)).body.executions).toEqual([]);
    expect(walk(path.join(stack.project.dir, "data")).filter((entry) => path.basename(entry.file).endsWith(marker))).toEqual([]);
    expect(processesWithMarker(serverMarker)).toEqual([]);
    const servers = (await stack.request("GET", "/api/mcp/servers")).body.servers as { name: string; status?: string }[];
    expect(servers.find((server) => server.name === "intruder:tap")).toMatchObject({ status: "denied" });
    expect(stack.listener.connections).toEqual([]);
  });
}

describe("third-party attacks on the deno backend", { timeout: 300_000 }, () => {
  attackSuite("deno");
  if (onceBackend === "deno") describe("plugins.host_programs: deny", () => denySuite("deno"));
});

describe("third-party attacks on the bubblewrap backend", { timeout: 300_000, ...needs("bubblewrap") }, () => {
  attackSuite("bubblewrap");
  if (onceBackend === "bubblewrap") describe("plugins.host_programs: deny", () => denySuite("bubblewrap"));
});
