// Cancelling a run while a tool other than bash runs a program: execute_code (the sandbox, through
// the warm pool), a registered script tool and a skill's script tool. Each program sleeps with a
// command line no other process has; cancel with wait answers only once it is gone, the history is
// closed with a "cancelled" tool message, and what the tool leaves behind works (the warm pool
// serves the next program; the execution log records the call as CANCELLED).
import path from "node:path";
import { ExecutionLog } from "@thinktank/tools";
import { needs, processesWithMarker } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^code sleep (\\\\S+)$", step: 0 }
    tool_calls:
      - name: execute_code
        args: { language: python, code: "import subprocess\\nsubprocess.run(['sleep', '{{match.1}}'])\\nprint('never')" }
  - when: { last_human: "^code hello$", step: 0 }
    tool_calls: [{ name: execute_code, args: { language: python, code: "print('hello from the pool')" } }]
  - when: { last_tool_name: execute_code }
    reply: "{{lastToolResult}}"
  - when: { last_human: "^tool sleep (\\\\S+)$", step: 0 }
    tool_calls: [{ name: slow_sleep, args: { seconds: "{{match.1}}" } }]
  - when: { last_human: "^skill sleep", step: 0 }
    tool_calls: [{ name: view_skill, args: { name: ops } }]
  - when: { last_tool_name: view_skill, last_human: "^skill sleep (\\\\S+)$", tool_available: ops_sleep }
    tool_calls: [{ name: ops_sleep, args: { seconds: "{{match.1}}" } }]
fallback:
  reply: "You said: {{lastHuman}}"
`;

/** Sleeps for args.seconds (a string such as "20.123", so the number names the process). */
const sleeper = 'import json, subprocess, sys\nargs = json.load(sys.stdin)\nsubprocess.run(["sleep", args["seconds"]])\nprint(json.dumps({"slept": True}))\n';
const sleeperSchema = { type: "object", properties: { seconds: { type: "string" } }, required: ["seconds"], additionalProperties: false };
const cancelledText = "cancelled: the run was cancelled before this tool call finished";

const suite = useSuiteProject({
  script,
  // A warm pool of one: the cancelled program ran in a pooled worker, and the next one must get a sound one.
  config: ["code_execution:", "  mode: code", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 1"],
  extensions: { tools: { slow_sleep: { description: "Sleeps", input_schema: sleeperSchema, runtime: "python", script: "slow-sleep.py", timeout: 60 } } },
  files: {
    "tools/slow-sleep.py": sleeper,
    "skills/public/ops/SKILL.md": "---\nname: ops\ndescription: Operations specialist\n---\nOPS-PERSONA\n",
    "skills/public/ops/scripts/sleep.py": sleeper,
    "skills/public/ops/tools.json": JSON.stringify({ tools: [{ name: "ops_sleep", description: "Sleeps (ops)", runtime: "python", script: "sleep.py", timeout: 60, input_schema: sleeperSchema }] }),
  },
});

type Message = { type: string; content: unknown; name?: string; status?: string; tool_call_id?: string; tool_calls?: { id: string; name: string }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;
/** A sleep whose command line no other process has: `sleep 20.<digits>`. */
const uniqueSleep = () => `20.${process.pid}${Date.now() % 1_000_000}`;

/** The agent's execution log of script tool calls (`<data_dir>/logs/tools`). */
const executionLog = () => new ExecutionLog({ dir: path.join(suite.fixture.dir, "data/logs/tools") });

/** Waits for a process whose command line holds `marker` to appear (no event tells of a sandboxed process, so /proc is polled). */
const started = (marker: string, what: string) => expect.poll(() => processesWithMarker(marker).length, { timeout: 120_000, interval: 25, message: what }).toBeGreaterThan(0);

/**
 * Starts a run whose tool sleeps, waits for the sleep, cancels with wait; the sleep is gone when
 * the cancel answers and the thread ends with the tool's call answered "cancelled".
 */
async function cancelDuringSleep(request: (seconds: string) => string, tool: string): Promise<{ threadId: string; seconds: string }> {
  const thread = await suite.client.threads.create();
  const seconds = uniqueSleep();
  const run = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human(request(seconds)) });
  await started(`sleep\u0000${seconds}`, `the ${tool} sleep started`);

  await suite.client.runs.cancel(thread.thread_id, run.run_id, true);
  expect(processesWithMarker(`sleep\u0000${seconds}`)).toEqual([]);
  expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  const state = await suite.client.threads.getState(thread.thread_id);
  const messages = messagesOf(state.values);
  const last = messages.at(-1);
  const call = messages.at(-2)?.tool_calls?.[0];
  expect(call?.name).toBe(tool);
  expect(last).toMatchObject({ type: "tool", tool_call_id: call?.id, status: "error", content: cancelledText });
  expect(state.next).toEqual([]);
  return { threadId: thread.thread_id, seconds };
}

describe("cancelling a run during a tool's program", { timeout: 240_000 }, () => {
  // Python's subprocess needs bubblewrap (on deno it is Pyodide, which starts none; the deno kill on cancel is
  // checked in packages/codemode's code-mode-failures.test.ts).
  it("execute_code: the program's processes are gone when cancel with wait answers; the next program runs in a sound worker", needs("bubblewrap"), async () => {
    const { threadId } = await cancelDuringSleep((seconds) => `code sleep ${seconds}`, "execute_code");
    const next = messagesOf(await suite.client.runs.wait(threadId, "lead_agent", { input: human("code hello") }));
    const result = JSON.parse(String(next.at(-1)?.content)) as { exit_code: number; stdout: string; error?: unknown };
    expect(result).toMatchObject({ exit_code: 0, stdout: "hello from the pool\n" });
    expect(result.error).toBeUndefined();
  });

  it("a registered script tool: its process tree is killed and the execution log records the call as CANCELLED", async () => {
    const { threadId, seconds } = await cancelDuringSleep((value) => `tool sleep ${value}`, "slow_sleep");
    const [record] = await executionLog().recent({ tool: "slow_sleep" });
    expect(record).toMatchObject({ status: "error", error: { code: "CANCELLED" }, source: "agent", thread_id: threadId, arguments: { seconds } });
  });

  it("a skill's script tool: its process tree is killed and the call logged as CANCELLED when cancel with wait answers", async () => {
    const { threadId } = await cancelDuringSleep((seconds) => `skill sleep ${seconds}`, "ops_sleep");
    const [record] = await executionLog().recent({ tool: "ops_sleep" });
    expect(record).toMatchObject({ status: "error", error: { code: "CANCELLED" }, thread_id: threadId });
  });
});
