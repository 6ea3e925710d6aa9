import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

const agentText = (name: string, description = `Does ${name} things.`, extra = ""): string => `---\nname: ${name}\ndescription: ${description}\n${extra}---\nYou are the ${name} agent.\n`;

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-agents-");
  writeTree(temp.dir, {
    "config.yaml": "agents:\n  path: agents\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "agents/custom/reviewer.md": agentText("reviewer", "Reviews a pull request for bugs.", "tools: Read, Grep\nmodel: haiku\n"),
    "agents/custom/broken.md": "---\nname: broken\n---\n",
    "incoming/triage.md": agentText("triage", "Sorts incoming issues by area."),
  });
});
afterEach(() => temp.cleanup());

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd: temp.dir, env: {} });

describe("thinktank agents", () => {
  it("lists, searches and shows agents, and reports files it could not use", async () => {
    const listed = await run("agents", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/builtin:general-purpose\s+enabled\s+/);
    expect(listed.stdout).toMatch(/custom:reviewer\s+enabled\s+Reviews a pull request for bugs\./);
    expect(listed.stderr).toMatch(/error: custom\/broken\.md: has no description/);
    const json = JSON.parse((await run("agents", "list", "--json")).stdout) as { agents: { identity: string; tools: string[] | null; model: string | null }[] };
    expect(json.agents.map((agent) => [agent.identity, agent.tools, agent.model])).toEqual([
      ["builtin:general-purpose", null, null],
      ["custom:reviewer", ["Read", "Grep"], "haiku"],
    ]);
    expect((await run("agents", "search", "pull", "request")).stdout).toMatch(/^ 1\. custom:reviewer/);
    const shown = await run("agents", "show", "reviewer");
    expect(shown.stdout).toContain("tools: Read, Grep");
    expect(shown.stdout).toContain("You are the reviewer agent.");
    expect(JSON.parse((await run("agents", "show", "reviewer", "--json")).stdout)).toMatchObject({ identity: "custom:reviewer", prompt: "You are the reviewer agent." });
    const missing = await run("agents", "show", "reveiwer");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("AGENT_NOT_FOUND");
  });

  it("disables and enables an agent in extensions_config.json, installs a file and removes it", async () => {
    expect((await run("agents", "disable", "reviewer")).stdout).toBe("custom:reviewer disabled\n");
    expect(JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")).agents).toEqual({ "custom:reviewer": { enabled: false } });
    expect((await run("agents", "enable", "custom:reviewer")).stdout).toBe("custom:reviewer enabled\n");
    const installed = await run("agents", "install", "incoming/triage.md");
    expect(installed).toMatchObject({ code: 0, stdout: `installed custom:triage at ${path.join(temp.dir, "agents/custom/triage.md")}\n` });
    expect((await run("agents", "install", "incoming/triage.md")).stderr).toContain("AGENT_NAME_CONFLICT");
    expect((await run("agents", "remove", "triage")).stdout).toBe("removed custom:triage\n");
    expect(fs.existsSync(path.join(temp.dir, "agents/custom/triage.md"))).toBe(false);
    expect((await run("agents", "remove", "general-purpose")).stderr).toContain("FORBIDDEN");
  });
});
