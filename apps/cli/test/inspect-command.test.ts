import { inspectPrompt } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank inspect prompt` end to end: a real project folder, the real command, a catalog folder of cached tool lists.
const temp = makeTempDir("tt-cli-inspect-");
afterAll(() => temp.cleanup());
const tools = Array.from({ length: 150 }, (_, index) => ({
  name: `tool_${index}`,
  description: `Does thing number ${index} with a fairly long description so the definitions add up quickly.`,
  inputSchema: { type: "object", properties: { value: { type: "string", description: "The value to work on" } } },
}));
writeTree(temp.dir, {
  "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\n",
  "extensions_config.json": '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n',
  "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nbody\n",
  "agents/custom/checker.md": "---\nname: checker\ndescription: Checks facts\ntools: Read, Frobnicate\nmodel: haiku\n---\nYou check facts.\n",
  "catalog/big.json": JSON.stringify({ server: "big", tools }),
  "catalog/small.json": JSON.stringify({ server: "small", tools: tools.slice(0, 1) }),
});

async function run(args: string[]): Promise<CapturedRun> {
  return runCaptured(args, { cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
}

describe("thinktank inspect prompt", { timeout: 120_000 }, () => {
  it("--json prints what inspectPrompt builds: the system prompt, every definition and the token counts", async () => {
    const result = await run(["inspect", "prompt", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { system_prompt: string; tools: unknown[]; tokens: { total: number; system_prompt: number; tools: number } };
    const expected = await inspectPrompt(loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } }));
    expect(printed.system_prompt).toBe(expected.systemPrompt);
    expect(printed.tools).toEqual(expected.tools);
    expect(printed.tokens).toMatchObject({ system_prompt: expected.tokens.systemPrompt, tools: expected.tokens.tools, total: expected.tokens.total });
    expect(printed.system_prompt).toContain("<name>notes</name>");
  });

  it("--catalog takes the MCP tools from cached lists: auto picks code mode for a large catalog, --mode direct lists every tool", async () => {
    const auto = JSON.parse((await run(["inspect", "prompt", "--catalog", "catalog", "--json"])).stdout) as { mode: string; reason: string; tools: { name: string }[]; system_prompt: string };
    expect(auto.mode).toBe("code");
    expect(auto.reason).toMatch(/^auto: 151 MCP tool definitions cost \d+ tokens, more than auto_threshold_tokens \(4000\)/);
    expect(auto.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["list_servers", "search_tools", "execute_code"]));
    expect(auto.system_prompt).toContain("<code_execution>");
    const direct = JSON.parse((await run(["inspect", "prompt", "--catalog", "catalog", "--mode", "direct", "--json"])).stdout) as { mode: string; tools: { name: string }[]; system_prompt: string };
    expect(direct.mode).toBe("direct");
    expect(direct.tools.filter((tool) => tool.name.startsWith("big__"))).toHaveLength(150);
    expect(direct.tools.map((tool) => tool.name)).toContain("small__tool_0");
    expect(direct.system_prompt).not.toContain("<code_execution>");
  });

  it("prints a readable report by default", async () => {
    const result = await run(["inspect", "prompt", "--mode", "code"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^=== system prompt \(\d+ tokens\) ===\nYou are Thinktank/);
    expect(result.stdout).toMatch(/=== tools: \d+ definitions, \d+ tokens \(MCP surface: code; code_execution.mode is code\) ===/);
    expect(result.stdout).toMatch(/--- read_file \(\d+ tokens\)\n/);
    expect(result.stdout).toMatch(/=== total: \d+ tokens \(o200k\) ===\n$/);
  });

  it("--message and --batch show what a first message carries: one JSON line per request, in order, in one process", async () => {
    const single = JSON.parse((await run(["inspect", "prompt", "--listing", "compact", "--message", "take notes of this meeting", "--json"])).stdout) as {
      message: string;
      skill_listing: { mode: string };
      system_prompt: string;
      message_context: string;
      tokens: { system_prompt: number; tools: number; message_context: number; total: number };
    };
    expect(single.skill_listing.mode).toBe("compact");
    expect(single.system_prompt).not.toContain("/mnt/skills/public/notes/SKILL.md");
    expect(single.message_context).toContain("- notes (/mnt/skills/public/notes/SKILL.md): Keeps notes");
    expect(single.tokens.total).toBe(single.tokens.system_prompt + single.tokens.tools + single.tokens.message_context);
    writeTree(temp.dir, { "messages.jsonl": [JSON.stringify({ message: "take notes" }), "", JSON.stringify({ message: "hello" }), "not json", JSON.stringify({ text: "x" })].join("\n") });
    const batch = await run(["inspect", "prompt", "--listing", "compact", "--batch", "messages.jsonl", "--json"]);
    expect(batch.code).toBe(1);
    const lines = batch.stdout.trim().split("\n").map((line) => JSON.parse(line) as { message?: string; system_prompt?: string; message_context?: string; line?: number; error?: { code: string } });
    expect(lines.map((line) => line.message ?? `${line.line} ${line.error?.code}`)).toEqual(["take notes", "hello", "4 INVALID_JSON", "5 VALIDATION_FAILED"]);
    expect(lines[0]?.system_prompt).toBe(single.system_prompt);
    expect(lines[0]?.message_context).toContain("/mnt/skills/public/notes/SKILL.md");
    expect(lines[1]?.message_context).toBe("");
    const full = JSON.parse((await run(["inspect", "prompt", "--message", "take notes", "--json"])).stdout) as { skill_listing: { mode: string }; message_context: string };
    expect(full).toMatchObject({ skill_listing: { mode: "full" }, message_context: "" });
    expect(await run(["inspect", "prompt", "--batch", "messages.jsonl"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--batch prints JSON lines: add --json") });
    expect(await run(["inspect", "prompt", "--listing", "short"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--listing must be one of full, compact, auto; got 'short'") });
  });

  it("--agent prints a sub-agent's prompt, tools and model; a batch line may name an agent", async () => {
    const json = JSON.parse((await run(["inspect", "prompt", "--agent", "checker", "--json"])).stdout) as {
      agent: { identity: string; tools: string[]; model: string };
      model: { name: string; reason: string };
      system_prompt: string;
      tools: { name: string }[];
      unmatched_tools: string[];
      tokens: { system_prompt: number; tools: number; total: number };
    };
    expect(json.agent).toMatchObject({ identity: "custom:checker", tools: ["Read", "Frobnicate"], model: "haiku" });
    expect(json.system_prompt).toMatch(/^You check facts\./);
    expect(json.tools.map((tool) => tool.name)).toContain("read_file");
    expect(json.tools.map((tool) => tool.name)).not.toContain("write_file");
    expect(json.unmatched_tools).toEqual(["Frobnicate"]);
    expect(json.model.reason).toBe("model: haiku, not mapped in subagents.models: the lead's model");
    expect(json.tokens.total).toBe(json.tokens.system_prompt + json.tokens.tools);
    const text = await run(["inspect", "prompt", "--agent", "custom:checker"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^=== agent custom:checker \(custom: .*checker\.md\) ===\nChecks facts\n/);
    expect(text.stdout).toContain("matched nothing: Frobnicate\n");
    expect(text.stdout).toMatch(/=== system prompt \(\d+ tokens\) ===\nYou check facts\./);
    writeTree(temp.dir, { "agents.jsonl": [JSON.stringify({ agent: "checker" }), JSON.stringify({ agent: "nobody" })].join("\n") });
    const batch = await run(["inspect", "prompt", "--batch", "agents.jsonl", "--json"]);
    const lines = batch.stdout.trim().split("\n").map((line) => JSON.parse(line) as { agent?: { identity: string }; error?: { code: string } });
    expect(lines.map((line) => line.agent?.identity ?? line.error?.code)).toEqual(["custom:checker", "AGENT_NOT_FOUND"]);
    expect(await run(["inspect", "prompt", "--agent", "nobody"])).toMatchObject({ code: 1, stderr: expect.stringContaining("AGENT_NOT_FOUND") });
    expect(await run(["inspect", "prompt", "--agent", "checker", "--message", "hi"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--agent shows a sub-agent's request") });
  });

  it("refuses bad usage with exit code 2, and a missing catalog with NOT_FOUND", async () => {
    expect(await run(["inspect"])).toMatchObject({ code: 2 });
    expect(await run(["inspect", "prompts"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown subcommand 'prompts'") });
    expect(await run(["inspect", "prompt", "--mode", "fast"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--mode must be one of direct, code, auto; got 'fast'") });
    expect(await run(["inspect", "prompt", "--colour"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--colour") });
    expect(await run(["inspect", "prompt", "--catalog", "nowhere"])).toMatchObject({ code: 1, stderr: expect.stringContaining("NOT_FOUND: no cached tool lists in") });
  });
});
