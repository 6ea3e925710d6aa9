// A sub-agent seen from outside, through the agent server process and the LangGraph SDK with the
// scripted model: `streamSubgraphs: true` streams its events under its namespace (and join replays
// them with the same names) while a stream without it is the lead's alone; its tool calls meet the
// plugins' PreToolUse / PostToolUse hooks as the lead's do, and its end meets SubagentStop, whose
// block sends it back to work. Hooks run in the sandbox: on bubblewrap where the machine has it,
// else on deno.
import fs from "node:fs";
import path from "node:path";
import { missingReason } from "@thinktank/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^A SubagentStop hook" }
    reply: "SUB-AGAIN: checked once more"
  - when: { last_human: "^SUB: run (.+)", step: 0 }
    tool_calls: [{ name: bash, args: { command: "{{match.1}}" } }]
  - when: { last_human: "^SUB: ", last_tool_name: bash }
    reply: "SUB-ANSWER: {{lastToolResult}}"
  - when: { last_human: "^delegate two: (.+) and (.+)", step: 0 }
    tool_calls:
      - { name: task, args: { subagent_type: general-purpose, description: "first", prompt: "SUB: run {{match.1}}" } }
      - { name: task, args: { subagent_type: general-purpose, description: "second", prompt: "SUB: run {{match.2}}" } }
  - when: { last_human: "^delegate (.+)", step: 0 }
    tool_calls: [{ name: task, args: { subagent_type: general-purpose, description: "run a command", prompt: "SUB: run {{match.1}}" } }]
  - when: { last_tool_name: task }
    reply: "LEAD: {{lastToolResult}}"
fallback:
  reply: "You said: {{lastHuman}}"
`;

const hooksJson = {
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/bash-guard.sh" }] }],
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/post-bash.sh" }] }],
    SubagentStop: [{ matcher: "general-purpose", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/subagent-stop.sh" }] }],
  },
};

const scripts: Record<string, string> = {
  "bash-guard.sh": `#!/bin/bash
input=$(cat)
case "$input" in
  *"rm -rf"*) echo "Blocked: rm -rf is not allowed here" >&2; exit 2;;
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
  // Blocks the first stop of a delegation whose answer mentions sub-stop-once; says what it was given.
  "subagent-stop.sh": `#!/bin/bash
input=$(cat)
if [ -f /mnt/user-data/workspace/substop-always ]; then echo "SUBSTOP-ALWAYS: keep going" >&2; exit 2; fi
case "$input" in
  *'"stop_hook_active":false'*sub-stop-once*) echo "SUBSTOP: check your work once more ($(printf '%s' "$input" | tr -d '\\n' | sed -n 's/.*"agent_type":"\\([^"]*\\)".*/\\1/p'))" >&2; exit 2;;
esac
exit 0
`,
};

const pluginFiles: Record<string, string> = {
  "plugins/installed/guard/.claude-plugin/plugin.json": JSON.stringify({ name: "guard", version: "1.0.0" }),
  "plugins/installed/guard/hooks/hooks.json": JSON.stringify(hooksJson, null, 2),
  ...Object.fromEntries(Object.entries(scripts).map(([file, text]) => [`plugins/installed/guard/hooks/${file}`, text])),
};

type Message = { type: string; content: unknown; name?: string; status?: string };
interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

const backend = missingReason("bubblewrap") === undefined ? "bubblewrap" : "deno";
const suite = useSuiteProject({ script, config: ["sandbox:", `  backend: ${backend}`], files: pluginFiles });
beforeAll(() => {
  for (const file of Object.keys(scripts)) fs.chmodSync(path.join(suite.fixture.dir, "plugins/installed/guard/hooks", file), 0o755);
});

async function stream(text: string, streamSubgraphs: boolean | undefined): Promise<{ threadId: string; runId: string; events: StreamEvent[] }> {
  const threadId = (await suite.client.threads.create()).thread_id;
  let runId = "";
  const events: StreamEvent[] = [];
  for await (const chunk of suite.client.runs.stream(threadId, "lead_agent", {
    input: { messages: [{ type: "human", content: text }] },
    streamMode: ["values", "updates", "messages-tuple", "custom"],
    ...(streamSubgraphs === undefined ? {} : { streamSubgraphs }),
    onRunCreated: (run) => (runId = run.run_id),
  })) {
    if (chunk.event === "error") throw new Error(`run failed: ${JSON.stringify(chunk.data)}`);
    events.push({ event: chunk.event, data: chunk.data });
  }
  return { threadId, runId, events };
}

const namespaceOf = (event: string): string[] => event.split("|").slice(1);
const text = (value: unknown) => JSON.stringify(value);
const lastValues = (events: readonly StreamEvent[], namespaced: boolean) => events.filter((event) => event.event.startsWith("values") && event.event.includes("|") === namespaced).at(-1)?.data as { messages: Message[] } | undefined;

describe(`sub-agents through the SDK (${backend} backend)`, { timeout: 180_000 }, () => {
  it("streamSubgraphs gives the sub-agent's events under its namespace; without it the stream is the lead's; join replays the names", async () => {
    const plain = await stream("delegate echo STREAMED", undefined);
    expect(plain.events.every((event) => !event.event.includes("|"))).toBe(true);
    // The lead sees the task call and its result; the sub-agent's prompt and its bash call never reach its stream.
    expect(plain.events.some((event) => text(event.data).includes("SUB: run echo STREAMED") && event.event !== "values" && event.event !== "updates" && event.event !== "messages")).toBe(false);
    expect(plain.events.some((event) => text(event.data).includes('"name":"bash"'))).toBe(false);
    expect(String(lastValues(plain.events, false)?.messages.at(-1)?.content)).toMatch(/^LEAD: SUB-ANSWER: .*STREAMED/s);

    const withSubgraphs = await stream("delegate echo STREAMED", true);
    const nested = withSubgraphs.events.filter((event) => event.event.includes("|"));
    expect(nested.length).toBeGreaterThan(0);
    const namespaces = new Set(nested.map((event) => namespaceOf(event.event).join("|")));
    expect(namespaces.size).toBe(1);
    const [namespace] = [...namespaces];
    // tools:<the task call's id>, which the LangGraph SDK reads a sub-agent's tool call from.
    const taskCall = (lastValues(withSubgraphs.events, false)?.messages[1] as { tool_calls?: { id: string }[] } | undefined)?.tool_calls?.[0]?.id;
    expect(namespace).toBe(`tools:${taskCall}`);
    expect(new Set(nested.map((event) => event.event.split("|")[0]))).toEqual(new Set(["values", "updates", "messages", "custom"]));
    // The sub-agent's own conversation: its prompt, its bash call and result, its answer.
    const sub = lastValues(withSubgraphs.events, true)?.messages ?? [];
    expect(sub.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(sub[0]?.content).toBe("SUB: run echo STREAMED");
    expect(sub[2]).toMatchObject({ type: "tool", name: "bash" });
    expect(String(sub[3]?.content)).toMatch(/^SUB-ANSWER: .*STREAMED/s);
    // Its tokens are messages-tuple events of its namespace; the lead's stream (no "|") is what it was without the flag.
    expect(nested.filter((event) => event.event.startsWith("messages|")).some((event) => text(event.data).includes("SUB-ANSWER"))).toBe(true);
    const rootNames = (events: readonly StreamEvent[]) => events.filter((event) => !event.event.includes("|") && event.event !== "metadata").map((event) => event.event);
    // The sub-agent's hook records are `custom` events: the lead's without the flag, its namespace's with it.
    const hookEvents = (events: readonly StreamEvent[], name: string) => events.filter((event) => event.event === name).map((event) => (event.data as { event?: string }).event);
    expect(hookEvents(plain.events, "custom")).toEqual(["PreToolUse", "PostToolUse", "SubagentStop"]);
    expect(hookEvents(withSubgraphs.events, `custom|${namespace}`)).toEqual(["PreToolUse", "PostToolUse", "SubagentStop"]);
    expect(rootNames(withSubgraphs.events)).toEqual(rootNames(plain.events).filter((name) => name !== "custom"));

    // join (a re-attached stream) replays the kept events under the same names.
    const joined: string[] = [];
    for await (const chunk of suite.client.runs.joinStream(withSubgraphs.threadId, withSubgraphs.runId)) joined.push(chunk.event);
    expect(joined.filter((name) => name !== "metadata")).toEqual(withSubgraphs.events.map((event) => event.event).filter((name) => name !== "metadata"));
  });

  it("two sub-agents of one message stream under namespaces of their own: tools:<each task call's id>", async () => {
    const run = await stream("delegate two: echo FIRST and echo SECOND", true);
    const calls = (lastValues(run.events, false)?.messages[1] as { tool_calls?: { id: string }[] } | undefined)?.tool_calls?.map((call) => call.id) ?? [];
    expect(calls).toHaveLength(2);
    const prompts = new Map<string, string>();
    for (const event of run.events.filter((each) => each.event.startsWith("values|"))) {
      const first = (event.data as { messages: Message[] }).messages[0];
      prompts.set(namespaceOf(event.event)[0] as string, String(first?.content));
    }
    expect(Object.fromEntries(prompts)).toEqual({ [`tools:${calls[0]}`]: "SUB: run echo FIRST", [`tools:${calls[1]}`]: "SUB: run echo SECOND" });
  });

  it("the sub-agent's tool calls meet PreToolUse and PostToolUse as the lead's do", async () => {
    const blocked = await stream("delegate rm -rf /mnt/user-data/workspace", true);
    const sub = lastValues(blocked.events, true)?.messages ?? [];
    expect(sub[2]).toMatchObject({ type: "tool", name: "bash", status: "error", content: "Blocked by a PreToolUse hook (plugin guard): Blocked: rm -rf is not allowed here" });
    const records = blocked.events.filter((event) => event.event.startsWith("custom|")).map((event) => event.data as { event: string; outcome: string });
    expect(records).toContainEqual(expect.objectContaining({ event: "PreToolUse", outcome: "block" }));
    const reviewed = await stream("delegate echo post-check", true);
    expect(String((lastValues(reviewed.events, true)?.messages ?? [])[2]?.content)).toContain("POST-HOOK: the output was reviewed");
  });

  it("SubagentStop: a block sends the sub-agent back to work with the reason; the lead gets its last answer", async () => {
    const run = await stream("delegate echo sub-stop-once", true);
    const sub = lastValues(run.events, true)?.messages ?? [];
    expect(sub.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai", "human", "ai"]);
    expect(sub[4]?.content).toBe("A SubagentStop hook (plugin guard) asks you to continue: SUBSTOP: check your work once more (general-purpose)");
    expect(sub[5]?.content).toBe("SUB-AGAIN: checked once more");
    const records = run.events.filter((event) => event.event.startsWith("custom|")).map((event) => event.data as { event: string; outcome: string; agent_type?: string });
    expect(records.filter((record) => record.event === "SubagentStop")).toEqual([
      expect.objectContaining({ outcome: "block", agent_type: "general-purpose" }),
      expect.objectContaining({ outcome: "ok", agent_type: "general-purpose" }),
    ]);
    const lead = lastValues(run.events, false)?.messages ?? [];
    expect(String(lead.at(-1)?.content)).toMatch(/^LEAD: SUB-AGAIN: checked once more/);
    // The lead's history holds the task call and its result, nothing of the sub-agent's.
    expect(lead.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
  });

  it("SubagentStop that always blocks sends the sub-agent back 3 times at most, then the delegation ends", async () => {
    const run = await stream("delegate touch /mnt/user-data/workspace/substop-always", true);
    const sub = lastValues(run.events, true)?.messages ?? [];
    expect(sub.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai", "human", "ai", "human", "ai", "human", "ai"]);
    expect(sub.filter((message) => message.type === "human").slice(1).map((message) => message.content)).toEqual(Array(3).fill("A SubagentStop hook (plugin guard) asks you to continue: SUBSTOP-ALWAYS: keep going"));
    const stops = run.events.filter((event) => event.event.startsWith("custom|")).map((event) => event.data as { event: string; outcome: string }).filter((record) => record.event === "SubagentStop");
    expect(stops.map((record) => record.outcome)).toEqual(["block", "block", "block", "block"]);
    expect(String(lastValues(run.events, false)?.messages.at(-1)?.content)).toMatch(/^LEAD: SUB-AGAIN: checked once more/);
  });
});
