// Plugin hooks through the agent server process, a real sandbox and the scripted model: plugins in
// the shapes real plugins use (hooks/hooks.json naming ${CLAUDE_PLUGIN_ROOT}/hooks/<script>), their
// hooks run for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse and Stop, and every hook's
// result is a `custom` event of the run. The event contract does not depend on the backend, so it runs
// once: on bubblewrap where the machine has it (CI), else on deno. The deno backend always runs what
// is its own (shell hooks in its shell, a python hook failing non-blockingly, the hook's view).
import fs from "node:fs";
import path from "node:path";
import { missingReason, needs, processesWithMarker } from "@thinktank/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useSuiteProject, type SuiteAgent } from "./support/suite-agent.js";
import type { ProjectFixture } from "./support/project-fixture.js";

const script = `
rules:
  - when: { last_human: "^run (.+)", step: 0 }
    tool_calls: [{ name: bash, args: { command: "{{match.1}}" } }]
  - when: { last_tool_name: bash }
    reply: "bash said: {{lastToolResult}}"
  - when: { last_human: "^write (\\\\S+) (.+)", step: 0 }
    tool_calls: [{ name: write_file, args: { path: "{{match.1}}", content: "{{match.2}}" } }]
  - when: { last_tool_name: write_file }
    reply: "write said: {{lastToolResult}}"
  - when: { last_human: "^A Stop hook" }
    reply: "checked after the stop hook"
  - when: { last_human: "CONTEXT-FROM-HOOK" }
    reply: "saw the prompt context: {{lastHuman}}"
  - when: { last_human: "SESSION-CONTEXT" }
    reply: "saw the session context"
fallback:
  reply: "You said: {{lastHuman}}"
`;

const hooksJson = {
  description: "Guards for the hook tests",
  hooks: {
    SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh" }] }],
    UserPromptSubmit: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/prompt.sh", timeout: 3 }] }],
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/bash-guard.sh" }] },
      { matcher: "Write|Edit", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/write-guard.sh" }] },
    ],
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/post-bash.sh" }] }],
    Stop: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh" }] }],
  },
};

const scripts: Record<string, string> = {
  "session-start.sh": '#!/bin/bash\ncat > /dev/null\necho "SESSION-CONTEXT: the project is called Albatross"\n',
  "prompt.sh": `#!/bin/bash
input=$(cat)
case "$input" in
  *forbidden*) echo "prompts about forbidden things are blocked" >&2; exit 2;;
  *"context please"*) echo "CONTEXT-FROM-HOOK: today is pelican day";;
  *"json context"*) echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CONTEXT-FROM-HOOK via JSON"}}';;
  *"hang please"*) sleep "$(printf '%s' "$input" | sed -n 's/.*hang please \\([0-9.]*\\).*/\\1/p')";;
  *"show env"*)
    echo "CONTEXT-FROM-HOOK env:"; env | sort
    if touch "$CLAUDE_PLUGIN_ROOT/pwned" 2>/dev/null; then echo "plugin folder writable"; else echo "plugin folder read-only"; fi;;
esac
exit 0
`,
  "bash-guard.sh": `#!/bin/bash
input=$(cat)
case "$input" in
  *"rm -rf"*) echo "Blocked: rm -rf is not allowed here" >&2; exit 2;;
  *json-deny*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"JSON-DENY: this command is not allowed"}}';;
  *REWRITE-ME*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten-by-hook"}}}';;
  *ask-me*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"ASK: a human should look"}}';;
  *stop-now*) echo '{"continue":false,"stopReason":"STOP-NOW: maintenance window"}';;
esac
exit 0
`,
  "write-guard.sh": `#!/bin/bash
input=$(cat)
case "$input" in
  *secret*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no writes to secret files"}}';;
esac
exit 0
`,
  "post-bash.sh": `#!/bin/bash
input=$(cat)
case "$input" in
  *post-check*) echo '{"decision":"block","reason":"POST-HOOK: the output was reviewed"}';;
esac
exit 0
`,
  "stop.sh": `#!/bin/bash
input=$(cat)
if [ -f /mnt/user-data/workspace/stop-always ]; then echo "STOP-ALWAYS: keep going" >&2; exit 2; fi
case "$input" in
  *'"stop_hook_active":false'*) if [ -f /mnt/user-data/workspace/stop-once ]; then echo '{"decision":"block","reason":"STOP-HOOK: check your work once more"}'; fi;;
esac
exit 0
`,
};

const pythonHook = `import json, sys
data = json.load(sys.stdin)
if "py-deny" in data["tool_input"].get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "PY-DENY: python says no"}}))
`;

/** The project's plugin folders: guard (shell hooks for every event) and pyguard (one python PreToolUse hook). */
const pluginFiles: Record<string, string> = {
  "plugins/installed/guard/.claude-plugin/plugin.json": JSON.stringify({ name: "guard", version: "1.0.0" }),
  "plugins/installed/guard/hooks/hooks.json": JSON.stringify(hooksJson, null, 2),
  ...Object.fromEntries(Object.entries(scripts).map(([file, text]) => [`plugins/installed/guard/hooks/${file}`, text])),
  "plugins/installed/pyguard/.claude-plugin/plugin.json": JSON.stringify({ name: "pyguard" }),
  "plugins/installed/pyguard/hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/check.py", timeout: 20 }] }] } }),
  "plugins/installed/pyguard/hooks/check.py": pythonHook,
};

/** Real plugins ship their hook scripts executable. */
function makeScriptsExecutable(project: ProjectFixture): void {
  for (const file of Object.keys(scripts)) fs.chmodSync(path.join(project.dir, "plugins/installed/guard/hooks", file), 0o755);
}

type Message = { type: string; content: unknown; name?: string; status?: string; additional_kwargs?: Record<string, unknown> };
interface HookRecord {
  type: "hook";
  event: string;
  plugin: string;
  outcome: string;
  ms: number;
  exit_code: number | null;
  tool?: string;
  reason?: string;
  note?: string;
  stderr?: string;
  decision?: string;
}

/** One run through the stream with the `custom` mode: the hook records it emitted, and the thread's messages after it. */
async function runWithEvents(suite: SuiteAgent<ProjectFixture>, threadId: string, text: string): Promise<{ hooks: HookRecord[]; messages: Message[]; last: Message }> {
  const hooks: HookRecord[] = [];
  for await (const chunk of suite.client.runs.stream(threadId, "lead_agent", { input: { messages: [{ type: "human", content: text }] }, streamMode: ["custom", "values"] })) {
    if (chunk.event === "error") throw new Error(`run failed: ${JSON.stringify(chunk.data)}`);
    if (chunk.event === "custom" && (chunk.data as { type?: string }).type === "hook") hooks.push(chunk.data as HookRecord);
  }
  const messages = ((await suite.client.threads.getState(threadId)).values as { messages: Message[] }).messages;
  return { hooks, messages, last: messages.at(-1) as Message };
}

const newThread = async (suite: SuiteAgent<ProjectFixture>) => (await suite.client.threads.create()).thread_id;
const workspaceOf = (suite: SuiteAgent<ProjectFixture>, threadId: string) => path.join(suite.fixture.dir, "data/workspaces", threadId);

/** The backend the whole event contract runs on: bubblewrap where the machine has it, else deno. */
const contractBackend = missingReason("bubblewrap") === undefined ? "bubblewrap" : "deno";

function hookSuite(backend: "deno" | "bubblewrap") {
  const suite = useSuiteProject({ script, config: ["sandbox:", `  backend: ${backend}`], files: pluginFiles });
  beforeAll(() => makeScriptsExecutable(suite.fixture));
  // Event semantics (what a hook's answer does to the run) are the same on every backend: tested on one.
  const contract = (title: string, test: () => Promise<void>) => (backend === contractBackend ? it(title, test) : undefined);

  contract("SessionStart adds context on a thread's first run only; the model sees it with the first message", async () => {
    const threadId = await newThread(suite);
    const first = await runWithEvents(suite, threadId, "hello there");
    expect(first.last.content).toBe("saw the session context");
    expect(first.hooks.filter((hook) => hook.event === "SessionStart")).toEqual([expect.objectContaining({ plugin: "guard", outcome: "ok", exit_code: 0 })]);
    // What the user typed is stored as typed; the context beside it.
    expect(first.messages[0]?.content).toBe("hello there");
    expect(first.messages[0]?.additional_kwargs?.hook_context).toEqual([{ event: "SessionStart", plugin: "guard", text: "SESSION-CONTEXT: the project is called Albatross" }]);
    const second = await runWithEvents(suite, threadId, "hello again");
    expect(second.hooks.map((hook) => hook.event)).not.toContain("SessionStart");
    expect(second.last.content).toBe("You said: hello again");
  });

  contract("UserPromptSubmit adds context the model sees (plain stdout, and JSON additionalContext)", async () => {
    const threadId = await newThread(suite);
    await runWithEvents(suite, threadId, "hello");
    const plain = await runWithEvents(suite, threadId, "context please");
    expect(plain.last.content).toContain("saw the prompt context: context please");
    expect(plain.last.content).toContain('<hook_context event="UserPromptSubmit" plugin="guard">\nCONTEXT-FROM-HOOK: today is pelican day\n</hook_context>');
    const json = await runWithEvents(suite, threadId, "json context");
    expect(json.last.content).toContain("CONTEXT-FROM-HOOK via JSON");
  });

  contract("UserPromptSubmit exit 2 blocks the message: the run answers the reason and the model never sees it", async () => {
    const threadId = await newThread(suite);
    const blocked = await runWithEvents(suite, threadId, "tell me forbidden things");
    expect(blocked.last).toMatchObject({ type: "ai", content: "This message was blocked by a UserPromptSubmit hook (plugin guard): prompts about forbidden things are blocked" });
    expect(blocked.hooks).toContainEqual(expect.objectContaining({ event: "UserPromptSubmit", outcome: "block", exit_code: 2 }));
    const next = await runWithEvents(suite, threadId, "what now");
    // The model is sent neither the blocked message nor its answer.
    expect(next.last.content).toBe("You said: what now");
    expect(next.messages.map((message) => message.type)).toEqual(["human", "ai", "human", "ai"]);
  });

  it("PreToolUse on Bash: exit 2 blocks rm -rf (the model gets stderr; nothing ran) and lets other commands run", async () => {
    const threadId = await newThread(suite);
    const touched = await runWithEvents(suite, threadId, "run touch /mnt/user-data/workspace/victim.txt");
    expect(touched.last.content).toContain("exit code: 0");
    expect(fs.existsSync(path.join(workspaceOf(suite, threadId), "victim.txt"))).toBe(true);
    const blocked = await runWithEvents(suite, threadId, "run rm -rf /mnt/user-data/workspace/victim.txt");
    const result = blocked.messages.at(-2) as Message;
    expect(result).toMatchObject({ type: "tool", name: "bash", status: "error", content: "Blocked by a PreToolUse hook (plugin guard): Blocked: rm -rf is not allowed here" });
    expect(blocked.last.content).toBe("bash said: Blocked by a PreToolUse hook (plugin guard): Blocked: rm -rf is not allowed here");
    expect(fs.existsSync(path.join(workspaceOf(suite, threadId), "victim.txt"))).toBe(true);
    expect(blocked.hooks).toContainEqual(expect.objectContaining({ event: "PreToolUse", plugin: "guard", tool: "bash", outcome: "block", exit_code: 2, reason: "Blocked: rm -rf is not allowed here" }));
  });

  contract("PreToolUse JSON: a deny with permissionDecisionReason (Write), and updatedInput (Bash runs the rewritten command)", async () => {
    const threadId = await newThread(suite);
    const denied = await runWithEvents(suite, threadId, "write /mnt/user-data/workspace/secret.txt hush");
    expect(denied.last.content).toBe("write said: Blocked by a PreToolUse hook (plugin guard): no writes to secret files");
    expect(fs.existsSync(path.join(workspaceOf(suite, threadId), "secret.txt"))).toBe(false);
    const jsonDenied = await runWithEvents(suite, threadId, "run echo json-deny");
    expect(jsonDenied.last.content).toContain("JSON-DENY: this command is not allowed");
    const rewritten = await runWithEvents(suite, threadId, "run echo REWRITE-ME");
    expect(rewritten.last.content).toContain("stdout:\nrewritten-by-hook");
    expect(rewritten.last.content).not.toContain("REWRITE-ME");
    expect(rewritten.hooks).toContainEqual(expect.objectContaining({ event: "PreToolUse", plugin: "guard", decision: "allow", outcome: "ok" }));
    const asked = await runWithEvents(suite, threadId, "run echo ask-me");
    expect(asked.last.content).toBe("bash said: Blocked: a PreToolUse hook asked for the user's approval, which hooks cannot ask for here, so the call did not run: ASK: a human should look");
  });

  contract("PreToolUse continue: false stops the run: the tool does not run and the model is not called again", async () => {
    const threadId = await newThread(suite);
    const { messages, last } = await runWithEvents(suite, threadId, "run echo stop-now > /mnt/user-data/workspace/stopped.txt");
    expect(last).toMatchObject({ type: "ai", content: "Stopped by a PreToolUse hook of plugin guard: STOP-NOW: maintenance window" });
    expect(messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(fs.existsSync(path.join(workspaceOf(suite, threadId), "stopped.txt"))).toBe(false);
  });

  contract("PostToolUse decision block: the reason is added to the tool result for the model", async () => {
    const threadId = await newThread(suite);
    const checked = await runWithEvents(suite, threadId, "run echo post-check");
    expect(checked.last.content).toContain("stdout:\npost-check");
    expect(checked.last.content).toContain('<hook_feedback event="PostToolUse" plugin="guard">\nPOST-HOOK: the output was reviewed\n</hook_feedback>');
    expect(checked.hooks).toContainEqual(expect.objectContaining({ event: "PostToolUse", outcome: "block", tool: "bash" }));
  });

  contract("a Stop hook that blocks once sends the model back to work with the reason, then lets it stop", async () => {
    const threadId = await newThread(suite);
    const { messages, last, hooks } = await runWithEvents(suite, threadId, "run touch /mnt/user-data/workspace/stop-once");
    expect(last.content).toBe("checked after the stop hook");
    expect(messages.at(-2)).toMatchObject({ type: "human", content: "A Stop hook (plugin guard) asks you to continue: STOP-HOOK: check your work once more" });
    expect(hooks.filter((hook) => hook.event === "Stop").map((hook) => hook.outcome)).toEqual(["block", "ok"]);
  });

  contract("a Stop hook that always blocks is obeyed three times a run, then the run ends", async () => {
    const threadId = await newThread(suite);
    const { messages, hooks } = await runWithEvents(suite, threadId, "run touch /mnt/user-data/workspace/stop-always");
    expect(hooks.filter((hook) => hook.event === "Stop").map((hook) => hook.outcome)).toEqual(["block", "block", "block", "block"]);
    expect(messages.filter((message) => message.type === "human" && message.additional_kwargs?.hook_feedback)).toHaveLength(3);
    expect(messages.at(-1)).toMatchObject({ type: "ai", content: "checked after the stop hook" });
  });

  it("a hook that hangs is killed at its timeout and the run goes on", async () => {
    const threadId = await newThread(suite);
    const seconds = `30.${process.pid}${Date.now() % 100_000}`;
    await runWithEvents(suite, threadId, "hello");
    const started = Date.now();
    const { last, hooks } = await runWithEvents(suite, threadId, `hang please ${seconds}`);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(last.content).toContain(`You said: hang please ${seconds}`);
    expect(hooks).toContainEqual(expect.objectContaining({ event: "UserPromptSubmit", outcome: "timeout", exit_code: null }));
    expect(processesWithMarker(`sleep\u0000${seconds}`)).toEqual([]);
  });

  it("a hook sees only its plugin's folder, read-only, at CLAUDE_PLUGIN_ROOT, and none of the agent's environment", async () => {
    const threadId = await newThread(suite);
    const { last } = await runWithEvents(suite, threadId, "show env");
    expect(last.content).toContain("CLAUDE_PLUGIN_ROOT=/mnt/plugins/guard");
    expect(last.content).toContain("CLAUDE_PROJECT_DIR=/mnt/user-data/workspace");
    expect(last.content).toContain("plugin folder read-only");
    expect(last.content).not.toContain("THINKTANK_CONFIG");
    expect(fs.existsSync(path.join(suite.fixture.dir, "plugins/installed/guard/pwned"))).toBe(false);
  });

  if (backend === "bubblewrap") {
    it("a python hook runs on bubblewrap: its JSON deny blocks the call", async () => {
      const threadId = await newThread(suite);
      const { last, hooks } = await runWithEvents(suite, threadId, "run echo py-deny");
      expect(last.content).toBe("bash said: Blocked by a PreToolUse hook (plugin pyguard): PY-DENY: python says no");
      expect(hooks).toContainEqual(expect.objectContaining({ event: "PreToolUse", plugin: "pyguard", outcome: "block", exit_code: 0 }));
    });
  } else {
    it("a python hook cannot run on deno: it fails clearly and non-blockingly, and the call runs", async () => {
      const threadId = await newThread(suite);
      const { last, hooks } = await runWithEvents(suite, threadId, "run echo py-deny");
      expect(last.content).toContain("stdout:\npy-deny");
      const python = hooks.find((hook) => hook.plugin === "pyguard");
      expect(python).toMatchObject({ event: "PreToolUse", outcome: "error", exit_code: 127 });
      expect(python?.stderr).toMatch(/sandbox backend is deno.*no python3/s);
    });
  }
}

describe("plugin hooks on the deno backend", { timeout: 240_000 }, () => hookSuite("deno"));

describe("plugin hooks on the bubblewrap backend", { timeout: 240_000, ...needs("bubblewrap") }, () => hookSuite("bubblewrap"));

describe("plugins.host_programs: deny", { timeout: 240_000 }, () => {
  // Denied before any backend is asked (PluginHooks.from): the contract's backend, whose bash is the cheaper.
  const suite = useSuiteProject({ script, config: ["sandbox:", `  backend: ${contractBackend}`, "plugins:", "  host_programs: deny"], files: pluginFiles });
  beforeAll(() => makeScriptsExecutable(suite.fixture));

  it("runs no hook: nothing is blocked, no context is added, no hook event is emitted", async () => {
    const threadId = await newThread(suite);
    await runWithEvents(suite, threadId, "run touch /mnt/user-data/workspace/victim.txt");
    const { hooks, last, messages } = await runWithEvents(suite, threadId, "run rm -rf /mnt/user-data/workspace/victim.txt");
    expect(hooks).toEqual([]);
    expect(last.content).toContain("exit code: 0");
    expect(fs.existsSync(path.join(workspaceOf(suite, threadId), "victim.txt"))).toBe(false);
    expect(messages[0]?.additional_kwargs?.hook_context).toBeUndefined();
  });
});

describe("plugin hooks on the local backend", { timeout: 240_000 }, () => {
  const suite = useSuiteProject({ script, config: ["sandbox:", "  backend: local"], files: pluginFiles });
  beforeAll(() => makeScriptsExecutable(suite.fixture));

  it("runs no hook: the local backend isolates nothing, and a plugin's hooks never run unisolated on the host", async () => {
    const threadId = await newThread(suite);
    const { hooks, last, messages } = await runWithEvents(suite, threadId, "context please");
    expect(hooks).toEqual([]);
    expect(last.content).toBe("You said: context please");
    expect(messages[0]?.additional_kwargs?.hook_context).toBeUndefined();
  });
});
