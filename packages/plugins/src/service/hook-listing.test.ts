import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { loadPlugin } from "../load-plugin.js";
import { hookBackendAvailability, hooksInSandbox, listPluginHooks } from "./hook-listing.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function pluginWithHooks(hooks: unknown) {
  const temp = makeTempDir("tt-hook-listing-");
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, "guard");
  writeTree(root, { ".claude-plugin/plugin.json": JSON.stringify({ name: "guard" }), "hooks/hooks.json": JSON.stringify({ hooks }) });
  return loadPlugin(root);
}

describe("listPluginHooks", () => {
  const plugin = () =>
    pluginWithHooks({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/guard.sh", timeout: 5 }, { type: "command", command: "echo two" }] }],
      PostToolUse: [{ matcher: "(a+)+", hooks: [{ type: "command", command: "echo slow" }] }],
      Stop: [{ hooks: [{ type: "agent", prompt: "check" }, { type: "command" }] }],
      SubagentStop: [{ hooks: [{ type: "command", command: "echo sub" }] }],
      Notification: [{ hooks: [{ type: "command", command: "echo note" }] }],
    });

  it("lists every hook with whether it runs here and why not", () => {
    expect(listPluginHooks(plugin())).toEqual([
      { event: "PreToolUse", matcher: "Bash", type: "command", command: "${CLAUDE_PLUGIN_ROOT}/guard.sh", timeout: 5, sandboxed: true, runs: true },
      { event: "PreToolUse", matcher: "Bash", type: "command", command: "echo two", timeout: 60, sandboxed: true, runs: true },
      { event: "PostToolUse", matcher: "(a+)+", type: "command", command: "echo slow", timeout: 60, sandboxed: true, runs: false, reason: expect.stringContaining("matches nothing") },
      { event: "Stop", matcher: null, type: "agent", command: null, timeout: null, sandboxed: true, runs: false, reason: "a 'agent' hook is not run here (only command hooks run)" },
      { event: "Stop", matcher: null, type: "command", command: null, timeout: 60, sandboxed: true, runs: false, reason: "a command hook without a 'command' string is skipped" },
      { event: "SubagentStop", matcher: null, type: "command", command: "echo sub", timeout: 60, sandboxed: true, runs: true },
      { event: "Notification", matcher: null, type: "command", command: "echo note", timeout: 60, sandboxed: true, runs: false, reason: expect.stringContaining("not one this agent fires") },
    ]);
  });

  it("runs none under plugins.host_programs: deny, and none the sandbox has no shell for", () => {
    const denied = listPluginHooks(plugin(), { hostPrograms: "deny" });
    expect(denied.every((hook) => !hook.runs)).toBe(true);
    expect(denied[0]?.reason).toBe("plugins.host_programs is deny: no program a plugin brings runs");
    expect(denied[3]?.reason).toContain("only command hooks run");

    const listed = listPluginHooks(plugin());
    expect(hooksInSandbox(listed, { ok: true })).toEqual(listed);
    const noShell = hooksInSandbox(listed, { ok: false, reason: "the deno backend runs no shell" });
    expect(noShell.map((hook) => [hook.runs, hook.reason])).toEqual([
      [false, "the sandbox cannot run it here: the deno backend runs no shell"],
      [false, "the sandbox cannot run it here: the deno backend runs no shell"],
      [false, listed[2]?.reason],
      [false, listed[3]?.reason],
      [false, listed[4]?.reason],
      [false, "the sandbox cannot run it here: the deno backend runs no shell"],
      [false, listed[6]?.reason],
    ]);
  });

  it("hooks run on the bubblewrap and deno backends (deno in its simulated shell), never on one that isolates nothing", () => {
    expect(hookBackendAvailability({ backend: "bubblewrap", isolated: true })).toEqual({ ok: true });
    expect(hookBackendAvailability({ backend: "deno", isolated: true })).toEqual({ ok: true });
    const local = hookBackendAvailability({ backend: "local", isolated: false });
    expect(local).toEqual({ ok: false, reason: expect.stringContaining("sandbox.backend is local, which isolates nothing") });
    expect(hooksInSandbox(listPluginHooks(plugin()), local)[0]).toMatchObject({ runs: false, reason: expect.stringContaining("never run unisolated on the host") });
  });
});
