import { describe, expect, it } from "vitest";
import type { HookCommandResult } from "./hook-types.js";
import { interpretHookResult, maxHookContextCharacters } from "./interpret-hook-result.js";

const exited = (exitCode: number, stdout = "", stderr = ""): HookCommandResult => ({ exitCode, stdout, stderr, timedOut: false });
const json = (value: unknown) => exited(0, `${JSON.stringify(value)}\n`);

describe("reading a hook's result by Claude Code's rules", () => {
  it("exit 2 blocks with stderr as the reason, except SessionStart, which cannot be blocked", () => {
    for (const event of ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"] as const) {
      expect(interpretHookResult(event, exited(2, "ignored stdout", "Blocked: rm -rf\n"))).toEqual({ outcome: "block", reason: "Blocked: rm -rf" });
    }
    expect(interpretHookResult("SessionStart", exited(2, "", "no"))).toMatchObject({ outcome: "error", reason: "no", note: "exit code 2 cannot block SessionStart" });
    expect(interpretHookResult("PreToolUse", exited(2)).reason).toMatch(/exit code 2, no message/);
  });

  it("another non-zero exit is a non-blocking error; a timeout or a failure to run too", () => {
    expect(interpretHookResult("PreToolUse", exited(1, "", "boom"))).toEqual({ outcome: "error", reason: "boom" });
    expect(interpretHookResult("PreToolUse", exited(127))).toEqual({ outcome: "error", reason: "exit code 127" });
    expect(interpretHookResult("Stop", { exitCode: null, stdout: "", stderr: "", timedOut: true, error: { code: "SANDBOX_TIMEOUT", message: "stopped after 2 s" } })).toEqual({ outcome: "timeout", reason: "stopped after 2 s" });
    expect(interpretHookResult("Stop", { exitCode: null, stdout: "", stderr: "", timedOut: false, error: { code: "SANDBOX_UNAVAILABLE", message: "no sandbox" } })).toEqual({ outcome: "error", reason: "SANDBOX_UNAVAILABLE: no sandbox" });
  });

  it("plain stdout on exit 0 is context for SessionStart and UserPromptSubmit only", () => {
    expect(interpretHookResult("UserPromptSubmit", exited(0, "today is pelican day\n"))).toEqual({ outcome: "ok", context: "today is pelican day" });
    expect(interpretHookResult("SessionStart", exited(0, "project Albatross"))).toEqual({ outcome: "ok", context: "project Albatross" });
    expect(interpretHookResult("PreToolUse", exited(0, "formatted 3 files"))).toEqual({ outcome: "ok" });
    expect(interpretHookResult("UserPromptSubmit", exited(0, "{not json"))).toEqual({ outcome: "ok", context: "{not json" });
  });

  it("cuts context at its bound, with a note", () => {
    const verdict = interpretHookResult("UserPromptSubmit", exited(0, "x".repeat(maxHookContextCharacters + 5)));
    expect(verdict.context).toHaveLength(maxHookContextCharacters + "\n[... 5 characters cut]".length);
    expect(verdict.note).toMatch(/cut/);
  });

  it("PreToolUse JSON: permissionDecision deny blocks with its reason; allow, ask and updatedInput are passed on", () => {
    const deny = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no writes to secrets" } };
    expect(interpretHookResult("PreToolUse", json(deny))).toEqual({ outcome: "block", decision: "deny", reason: "no writes to secrets" });
    const allow = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "echo safe" }, additionalContext: "note" } };
    expect(interpretHookResult("PreToolUse", json(allow))).toEqual({ outcome: "ok", decision: "allow", updatedInput: { command: "echo safe" }, context: "note" });
    expect(interpretHookResult("PreToolUse", json({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "sure?" } }))).toEqual({ outcome: "ok", decision: "ask", reason: "sure?" });
    // The older output: decision approve | block.
    expect(interpretHookResult("PreToolUse", json({ decision: "block", reason: "old style" }))).toEqual({ outcome: "block", decision: "deny", reason: "old style" });
    expect(interpretHookResult("PreToolUse", json({ decision: "approve" }))).toEqual({ outcome: "ok", decision: "allow" });
  });

  it("decision block with a reason blocks PostToolUse, UserPromptSubmit and Stop", () => {
    for (const event of ["PostToolUse", "UserPromptSubmit", "Stop"] as const) {
      expect(interpretHookResult(event, json({ decision: "block", reason: "check the tests" }))).toEqual({ outcome: "block", reason: "check the tests" });
    }
    expect(interpretHookResult("SessionStart", json({ decision: "block", reason: "x" }))).toEqual({ outcome: "ok" });
  });

  it("continue: false stops, over any decision; systemMessage and suppressOutput are kept", () => {
    const verdict = interpretHookResult("PostToolUse", json({ continue: false, stopReason: "build broke", decision: "block", reason: "r", systemMessage: "careful", suppressOutput: true }));
    expect(verdict).toEqual({ outcome: "stop", stopReason: "build broke", reason: "r", systemMessage: "careful", suppressOutput: true });
  });

  it("ignores hookSpecificOutput written for another event, and says so", () => {
    const verdict = interpretHookResult("UserPromptSubmit", json({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "wrong place" } }));
    expect(verdict).toEqual({ outcome: "ok", note: "hookSpecificOutput is for SessionStart, not UserPromptSubmit: ignored" });
  });
});
