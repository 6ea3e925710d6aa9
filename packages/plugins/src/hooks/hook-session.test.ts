// HookSession over real plugin folders (hooks/hooks.json, scripts under ${CLAUDE_PLUGIN_ROOT}) and a
// runner that starts each command as a real bash process: what is selected, what each hook is
// given on stdin, how results combine. The agent's sandbox runner is tested in apps/agent.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlugin } from "../load-plugin.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { HookSession } from "./hook-session.js";
import type { HookCommandRequest, HookCommandResult, HookCommandRunner, HookRunRecord } from "./hook-types.js";
import { PluginHooks } from "./plugin-hooks.js";

const temp = makeTempDir("tt-hooks-");
afterAll(() => temp.cleanup());

/** Runs a hook command with bash on this host, CLAUDE_PLUGIN_ROOT set, its input on stdin; kills it at its timeout. */
class BashRunner implements HookCommandRunner {
  readonly requests: HookCommandRequest[] = [];
  run(request: HookCommandRequest): Promise<HookCommandResult> {
    this.requests.push(request);
    return new Promise((resolve) => {
      const child = spawn("bash", ["--norc", "--noprofile", "-c", request.command], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CLAUDE_PLUGIN_ROOT: request.pluginRoot }, cwd: request.pluginRoot, detached: true });
      let stdout = "";
      let stderr = "";
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill(-(child.pid as number), "SIGKILL");
      }, request.timeoutMs);
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ exitCode: timedOut ? null : code, stdout, stderr, timedOut, ...(timedOut ? { error: { code: "SANDBOX_TIMEOUT", message: `stopped after ${request.timeoutMs} ms` } } : {}) });
      });
      // A hook that never reads its input may be gone before it is written.
      child.stdin.on("error", () => undefined);
      child.stdin.end(request.stdin);
    });
  }
}

/** A plugin folder with hooks/hooks.json and executable scripts under hooks/. */
function plugin(name: string, hooks: unknown, scripts: Record<string, string> = {}): LoadedPlugin {
  const root = path.join(temp.dir, name);
  writeTree(root, {
    ".claude-plugin/plugin.json": JSON.stringify({ name }),
    "hooks/hooks.json": JSON.stringify({ hooks }),
    ...Object.fromEntries(Object.entries(scripts).map(([file, text]) => [`hooks/${file}`, text])),
  });
  for (const file of Object.keys(scripts)) fs.chmodSync(path.join(root, "hooks", file), 0o755);
  const loaded = loadPlugin(root);
  expect(loaded.problems.filter((problem) => problem.severity === "error")).toEqual([]);
  return loaded;
}

const command = (text: string, timeout?: number) => ({ type: "command", command: text, ...(timeout ? { timeout } : {}) });
const facts = { sessionId: "thread-1", cwd: "/mnt/user-data/workspace" };

const guardScript = `#!/bin/bash
input=$(cat)
echo "$input" > "$CLAUDE_PLUGIN_ROOT/last-input.json"
case "$input" in
  *'rm -rf'*) echo "Blocked: rm -rf is not allowed" >&2; exit 2;;
  *'secret'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no secrets"}}';;
  *'REWRITE'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"/mnt/user-data/workspace/rewritten.txt"}}}';;
esac
exit 0
`;

const guard = plugin(
  "guard",
  {
    PreToolUse: [
      { matcher: "Bash|Write", hooks: [command("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh")] },
      // The same command again for the same event: it runs once.
      { matcher: "Bash", hooks: [command("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh")] },
      { matcher: "mcp__memory__.*", hooks: [command("echo mcp-seen >&2; exit 1")] },
    ],
    UserPromptSubmit: [{ hooks: [command("echo 'CONTEXT: today is pelican day'"), { type: "prompt", prompt: "Is this ok?" }] }],
    SessionStart: [{ matcher: "startup", hooks: [command('echo \'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"project Albatross"}}\'')] }],
    Stop: [{ hooks: [command("sleep 30", 1)] }],
    Notification: [{ hooks: [command("echo never")] }],
  },
  { "guard.sh": guardScript },
);
const second = plugin("second", { PreToolUse: [{ matcher: "*", hooks: [command('echo \'{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"second opinion"}}\'')] }] });

function session(plugins: readonly LoadedPlugin[], options: { hostPrograms?: "allow" | "deny" } = {}) {
  const runner = new BashRunner();
  const hooks = PluginHooks.from(plugins, options);
  return { runner, hooks, session: new HookSession({ hooks, runner, facts }) };
}

describe("HookSession: the hooks of enabled plugins, run and combined", () => {
  it("indexes command hooks by event and says why others are left out", () => {
    const { hooks } = session([guard]);
    expect(hooks.has("PreToolUse")).toBe(true);
    expect(hooks.has("PostToolUse")).toBe(false);
    expect(hooks.problems.map((problem) => `${problem.level}: ${problem.message}`)).toEqual([
      "debug: a 'prompt' hook is not run here (only command hooks run)",
      "debug: hook event 'Notification' is not one this agent fires; its hooks never run",
    ]);
  });

  it("an event no plugin hooks starts nothing", async () => {
    const { session: hooks, runner } = session([guard]);
    expect(await hooks.postToolUse({ name: "bash", args: { command: "ls" } }, "ok")).toEqual({ event: "PostToolUse", ran: 0, context: [] });
    expect(await hooks.preToolUse({ name: "read_file", args: { path: "/x" } })).toEqual({ event: "PreToolUse", ran: 0, context: [] });
    expect(runner.requests).toEqual([]);
  });

  it("PreToolUse on Bash: exit 2 denies with stderr; the input is Claude Code's; a duplicate command runs once", async () => {
    const { session: hooks, runner } = session([guard]);
    const records: HookRunRecord[] = [];
    const result = await hooks.preToolUse({ name: "bash", id: "call_1", args: { command: "rm -rf /mnt/user-data/workspace", timeout: 5 } }, { onRecord: (record) => records.push(record) });
    expect(result).toMatchObject({ ran: 1, decision: "deny", blocked: { reason: "Blocked: rm -rf is not allowed", plugins: ["guard"] } });
    expect(runner.requests).toHaveLength(1);
    expect(runner.requests[0]).toMatchObject({ plugin: "guard", pluginRoot: guard.root, command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", timeoutMs: 60_000 });
    expect(JSON.parse(fs.readFileSync(path.join(guard.root, "last-input.json"), "utf8"))).toEqual({
      session_id: "thread-1",
      cwd: "/mnt/user-data/workspace",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /mnt/user-data/workspace", timeout: 5000 },
      tool_use_id: "call_1",
    });
    expect(records).toEqual([expect.objectContaining({ type: "hook", event: "PreToolUse", plugin: "guard", outcome: "block", exit_code: 2, tool: "bash", tool_use_id: "call_1", reason: "Blocked: rm -rf is not allowed" })]);
    expect(records[0]?.ms).toBeGreaterThan(0);
  });

  it("PreToolUse on Write: a JSON deny with its reason; updatedInput mapped back to the agent's arguments", async () => {
    const { session: hooks } = session([guard]);
    const denied = await hooks.preToolUse({ name: "write_file", args: { path: "/mnt/user-data/workspace/secret.txt", content: "x" } });
    expect(denied).toMatchObject({ decision: "deny", blocked: { reason: "no secrets" } });
    const rewritten = await hooks.preToolUse({ name: "write_file", args: { path: "/mnt/user-data/workspace/a.txt", content: "REWRITE" } });
    expect(rewritten).toMatchObject({ decision: "allow", args: { path: "/mnt/user-data/workspace/rewritten.txt", content: "REWRITE" } });
    expect(rewritten.blocked).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(guard.root, "last-input.json"), "utf8")).tool_input).toEqual({ file_path: "/mnt/user-data/workspace/a.txt", content: "REWRITE" });
  });

  it("several plugins: deny wins over ask over allow; every hook runs side by side", async () => {
    const { session: hooks } = session([guard, second]);
    expect(await hooks.preToolUse({ name: "write_file", args: { path: "/secret", content: "" } })).toMatchObject({ ran: 2, decision: "deny" });
    expect(await hooks.preToolUse({ name: "bash", args: { command: "ls" } })).toMatchObject({ ran: 2, decision: "ask", askReason: "second opinion" });
  });

  it("an MCP tool is mcp__<server>__<tool>; a hook that exits 1 is a non-blocking error", async () => {
    const { session: hooks } = session([guard]);
    const records: HookRunRecord[] = [];
    const result = await hooks.preToolUse({ name: "memory__create_entities", mcp: { server: "memory", tool: "create_entities" }, args: {} }, { onRecord: (record) => records.push(record) });
    expect(result).toEqual({ event: "PreToolUse", ran: 1, context: [] });
    expect(records[0]).toMatchObject({ outcome: "error", exit_code: 1, reason: "mcp-seen", stderr: "mcp-seen\n" });
  });

  it("UserPromptSubmit: plain stdout is context; SessionStart: additionalContext for the startup source only", async () => {
    const { session: hooks } = session([guard]);
    expect(await hooks.userPromptSubmit("hello")).toMatchObject({ ran: 1, context: [{ plugin: "guard", text: "CONTEXT: today is pelican day" }] });
    expect(await hooks.sessionStart("startup")).toMatchObject({ ran: 1, context: [{ plugin: "guard", text: "project Albatross" }] });
    expect(await hooks.sessionStart("resume")).toMatchObject({ ran: 0 });
  });

  it("a hook that hangs is stopped at its own timeout and the event goes on (non-blocking)", async () => {
    const { session: hooks } = session([guard]);
    const records: HookRunRecord[] = [];
    const started = performance.now();
    const result = await hooks.stop(false, { onRecord: (record) => records.push(record) });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result).toEqual({ event: "Stop", ran: 1, context: [] });
    expect(records[0]).toMatchObject({ outcome: "timeout", exit_code: null });
  });

  it("cuts a hook's timeout to maxTimeoutSeconds", async () => {
    const runner = new BashRunner();
    const hooks = new HookSession({ hooks: PluginHooks.from([guard]), runner, facts, maxTimeoutSeconds: 0.5 });
    await hooks.preToolUse({ name: "bash", args: { command: "ls" } });
    expect(runner.requests[0]?.timeoutMs).toBe(500);
  });

  it("SubagentStop: the input names the sub-agent and its answer; the matcher matches its type; exit 2 blocks with stderr", async () => {
    const reviewer = plugin("reviewer", {
      SubagentStop: [
        { matcher: "reviewer:checker", hooks: [command('cat > "$CLAUDE_PLUGIN_ROOT/last-input.json"; echo "run the tests first" >&2; exit 2')] },
        { matcher: "^general-.*", hooks: [command('echo \'{"decision":"block","reason":"not yet"}\'')] },
      ],
    });
    const { session: hooks, runner } = session([reviewer]);
    const records: HookRunRecord[] = [];
    const agent = { id: "call_7", type: "reviewer:checker", names: ["reviewer:checker", "checker", "plugin:reviewer:checker"] };
    const result = await hooks.subagentStop(agent, false, "All done.", { onRecord: (record) => records.push(record) });
    expect(result).toMatchObject({ event: "SubagentStop", ran: 1, blocked: { reason: "run the tests first", plugins: ["reviewer"] } });
    expect(JSON.parse(fs.readFileSync(path.join(reviewer.root, "last-input.json"), "utf8"))).toEqual({
      session_id: "thread-1",
      cwd: "/mnt/user-data/workspace",
      hook_event_name: "SubagentStop",
      stop_hook_active: false,
      agent_id: "call_7",
      agent_type: "reviewer:checker",
      last_assistant_message: "All done.",
    });
    expect(records).toEqual([expect.objectContaining({ event: "SubagentStop", plugin: "reviewer", outcome: "block", agent_type: "reviewer:checker" })]);
    // A regular expression matcher, and the JSON block.
    expect(await hooks.subagentStop({ id: "call_8", type: "general-purpose", names: ["general-purpose", "builtin:general-purpose"] }, true, "x")).toMatchObject({ ran: 1, blocked: { reason: "not yet" } });
    // An agent no matcher names runs nothing.
    expect(await hooks.subagentStop({ id: "call_9", type: "writer", names: ["writer", "custom:writer"] }, false, "x")).toEqual({ event: "SubagentStop", ran: 0, context: [] });
    expect(runner.requests).toHaveLength(2);
  });

  it("plugins.host_programs: deny indexes no hook", async () => {
    const { session: hooks, runner, hooks: index } = session([guard], { hostPrograms: "deny" });
    expect(index.isEmpty).toBe(true);
    expect(await hooks.preToolUse({ name: "bash", args: { command: "rm -rf /" } })).toMatchObject({ ran: 0 });
    expect(runner.requests).toEqual([]);
  });
});
