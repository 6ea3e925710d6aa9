import { describe, expect, it } from "vitest";
import { artifactHref, readInterrupts, readValues, skillRead, toTurns, typedText, type ChatMessage } from "./chat-model.js";

const human = (id: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({ type: "human", id, content, ...extra });
const ai = (id: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({ type: "ai", id, content, ...extra });
const tool = (callId: string, content: string, status = "success"): ChatMessage => ({ type: "tool", id: `t-${callId}`, tool_call_id: callId, content, status });

describe("the chat's reading of a thread", () => {
  it("groups messages into turns, pairs tool results with their calls, and keeps the order", () => {
    const turns = toTurns([
      human("h1", "list it"),
      ai("a1", "Listing.", { tool_calls: [{ id: "c1", name: "ls", args: { path: "/mnt" } }] }),
      tool("c1", "uploads/"),
      ai("a2", "Listed."),
      human("h2", "again"),
      ai("a3", "", { tool_calls: [{ id: "c2", name: "ls", args: {} }] }),
    ]);
    expect(turns.map((turn) => turn.parts.map((part) => (part.kind === "text" ? part.text : `${part.step.call.name}:${part.step.result?.content ?? "open"}`)))).toEqual([
      ["Listing.", "ls:uploads/", "Listed."],
      ["ls:open"],
    ]);
  });

  it("reads skills offered (compact listing) and read (view_skill, a SKILL.md read, a skill run as a command)", () => {
    const [offeredTurn, commandTurn, fullTurn] = toTurns([
      human("h1", "notes", { additional_kwargs: { skill_context: { skills: [{ name: "notes", description: "d", location: "/mnt/skills/public/notes/SKILL.md" }], moreSkills: [{ name: "pdf", location: "x" }], commands: [] } } }),
      ai("a1", "", { tool_calls: [{ id: "c1", name: "view_skill", args: { name: "notes" } }, { id: "c2", name: "read_file", args: { path: "/mnt/skills/public/pdf/SKILL.md" } }] }),
      human("h2", "Skill notes (...):\n\nbody", { additional_kwargs: { slash_command: { kind: "skill", name: "notes", original: "/notes pelican" } } }),
      ai("a2", "Ran."),
      human("h3", "hi"),
      ai("a3", "Hello."),
    ]);
    expect(offeredTurn?.skills).toEqual({ offered: ["notes", "pdf"], read: ["notes", "pdf"] });
    expect(commandTurn?.skills.read).toEqual(["notes"]);
    expect(typedText(commandTurn?.human as ChatMessage)).toBe("/notes pelican");
    expect(fullTurn?.skills).toEqual({ read: [] });
    expect(skillRead({ name: "write_file", args: { path: "/mnt/skills/custom/x/SKILL.md" } })).toBeUndefined();
  });

  it("adds up reported tokens and the sub-agents' (delegation records)", () => {
    const [turn] = toTurns(
      [
        human("h1", "go"),
        ai("a1", "", { usage_metadata: { input_tokens: 100, output_tokens: 5 }, tool_calls: [{ id: "t1", name: "task", args: {} }] }),
        tool("t1", "answer"),
        ai("a2", "done", { usage_metadata: { input_tokens: 120, output_tokens: 7 } }),
      ],
      [{ tool_call_id: "t1", agent: "general-purpose", status: "ok", input_tokens: 50, output_tokens: 9, tokens_estimated: true, duration_ms: 10 }],
    );
    expect(turn?.tokens).toEqual({ reported: { input: 220, output: 12 }, delegated: { input: 50, output: 9, estimated: true } });
  });

  it("reads approvals and questions from the state's interrupts", () => {
    expect(readInterrupts([{ id: "i1", value: { question: "Which colour?", action_requests: [{ name: "request_human_input", args: {} }] } }])).toEqual([{ kind: "question", id: "i1", question: "Which colour?" }]);
    expect(readInterrupts([{ value: { action_requests: [{ name: "stamp", args: { text: "x" }, description: "d" }], tool_approvals: [{ reason: "why" }] } }])).toEqual([
      { kind: "approval", requests: [{ name: "stamp", args: { text: "x" }, description: "d", reason: "why" }] },
    ]);
    expect(readInterrupts("garbage")).toEqual([]);
  });

  it("links only artifacts that name a thread file route (state a client wrote may hold anything)", () => {
    expect(artifactHref({ url: "/threads/0b6c1a52-4f0e-4b8e-9c39-2d0f0f0f0f0f/files/outputs/report.md" })).toBe("/agent/threads/0b6c1a52-4f0e-4b8e-9c39-2d0f0f0f0f0f/files/outputs/report.md");
    for (const url of ["javascript:alert(1)", "https://evil.example/x", "//evil.example/x", "/threads/a/files/outputs/../../../api/x", "/threads/a/files/outputs/x?y=1"]) expect(artifactHref({ url })).toBeUndefined();
    expect(readValues({ artifacts: [{ name: "x" }, { name: "y", url: "/threads/a/files/outputs/y" }, "junk"] }).artifacts).toHaveLength(1);
  });
});
