// The real corpus installed through the gateway API (22 knowledge-work plugins, 12 anthropic
// skills: 224 skills, auto listing → compact), then: `thinktank inspect prompt --batch` over the
// skills eval's requests as one process (the contract's lines, a system prompt that names no skill
// and never changes, each request's skill offered with it, the largest request's tokens); agent
// runs in which the scripted model reads the SKILL.md it was offered; and every skill no request
// was offered reached through search_skills and read_file. Skipped, saying why, without the corpus.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client, type Message } from "@langchain/langgraph-sdk";
import { corpusLocation, needs, repositoryRoot } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devGoldFile, heldOutGoldFile, readSkillGold } from "../../../packages/skills/eval/skill-gold.js";
import { startAgentProcess, testEnv, type AgentProcess } from "./support/agent-process.js";
import { gatewayRequest, makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture } from "./support/project-fixture.js";

const script = JSON.stringify({
  rules: [
    { id: "read-offered", when: { last_human: String.raw`^please [\s\S]*<relevant_skills>[\s\S]*?\((/mnt/skills/\S+?/SKILL\.md)\)`, step: 0 }, tool_calls: [{ name: "read_file", args: { path: "{{match.1}}" } }] },
    { id: "find", when: { last_human: String.raw`^find (\S+)`, step: 0 }, tool_calls: [{ name: "search_skills", args: { query: "{{match.1}}", kind: "skills", limit: 1 } }] },
    { id: "read-found", when: { last_tool_name: "search_skills" }, tool_calls: [{ name: "read_file", args: { path: "{{lastToolResult.json.skills[0].location}}" } }] },
    { id: "read-result", when: { last_tool_name: "read_file" }, reply: "read it" },
  ],
  fallback: { reply: "nothing offered" },
});

interface BatchLine {
  message: string;
  skill_listing: { mode: string; reason: string };
  system_prompt: string;
  tools: { name: string }[];
  message_context: string;
  tokens: { system_prompt: number; tools: number; message_context: number; total: number };
}
interface ListedSkill {
  identity: string;
  name: string;
  enabled: boolean;
  location: string;
}

const dev = readSkillGold(devGoldFile);
const heldOut = readSkillGold(heldOutGoldFile);

describe("compact skill listing over the corpus installed through the API", { ...needs("corpus"), timeout: 600_000 }, () => {
  let project: ProjectFixture;
  let gateway: GatewayProcess;
  let agent: AgentProcess;
  let client: Client;
  let skills: ListedSkill[] = [];
  let lines: BatchLine[] = [];

  beforeAll(async () => {
    const corpus = corpusLocation();
    project = await makeProjectFixture({ script, config: ["code_execution:", "  mode: code", "sandbox:", "  warm_pool_size: 0"] });
    gateway = await startGatewayProcess(project);
    const marketplace = path.join(corpus, "knowledge-work-plugins");
    const { plugins } = JSON.parse(fs.readFileSync(path.join(marketplace, ".claude-plugin", "marketplace.json"), "utf8")) as { plugins: { name: string; source: unknown }[] };
    for (const plugin of plugins.filter((entry) => typeof entry.source === "string")) {
      const installed = await gatewayRequest(gateway, "POST", "/api/plugins/install", { marketplace, plugin: plugin.name });
      expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    }
    const refused: string[] = [];
    for (const folder of fs.readdirSync(path.join(corpus, "anthropic-skills")).filter((name) => !name.startsWith(".")).sort()) {
      const installed = await gatewayRequest(gateway, "POST", "/api/skills/install", { path: path.join(corpus, "anthropic-skills", folder) });
      if (installed.status === 201) continue;
      // claude-api's description is past the spec's 1,024 characters, so installs may refuse it; a
      // user can still drop the folder into skills/custom, where it loads with a warning (as the eval has it).
      expect(installed.body.code, JSON.stringify(installed.body)).toBe("INVALID_SKILL");
      refused.push(folder);
      fs.cpSync(path.join(corpus, "anthropic-skills", folder), path.join(project.dir, "skills", "custom", folder), { recursive: true });
    }
    expect(refused.filter((folder) => folder !== "claude-api")).toEqual([]);
    skills = ((await gatewayRequest(gateway, "GET", "/api/skills")).body.skills as ListedSkill[]).filter((skill) => skill.enabled);
    const requests = path.join(project.dir, "requests.jsonl");
    fs.writeFileSync(requests, [...dev, ...heldOut].map((pair) => JSON.stringify({ message: `please ${pair.query}` })).join("\n"));
    lines = (await runCli(project, ["inspect", "prompt", "--batch", requests, "--json"])).split("\n").filter(Boolean).map((line) => JSON.parse(line) as BatchLine);
    agent = await startAgentProcess(project.env);
    client = new Client({ apiUrl: agent.url, callerOptions: { maxRetries: 0 } });
  }, 600_000);

  afterAll(async () => {
    await agent?.stop();
    await gateway?.stop();
    project?.cleanup();
  });

  it("answers one line per request, in order, with a compact system prompt that names no skill and never changes", () => {
    expect(skills).toHaveLength(224);
    expect(lines.map((line) => line.message)).toEqual([...dev, ...heldOut].map((pair) => `please ${pair.query}`));
    const [first] = lines as [BatchLine];
    expect(first.skill_listing.mode).toBe("compact");
    expect(first.skill_listing.reason).toMatch(/^auto: listing 224 skills, \d+ slash commands and \d+ sub-agents costs (more than )?\d+ tokens, more than skills.auto_threshold_tokens \(2000\)$/);
    expect(first.system_prompt).toContain("224 are installed");
    expect(first.system_prompt).not.toMatch(/\/SKILL\.md/);
    expect(first.tools.map((tool) => tool.name)).toContain("search_skills");
    for (const line of lines) {
      expect(line.system_prompt).toBe(first.system_prompt);
      expect(line.tokens.total).toBe(line.tokens.system_prompt + line.tokens.tools + line.tokens.message_context);
    }
    expect(Math.max(...lines.map((line) => line.tokens.total))).toBeLessThanOrEqual(4000);
  });

  it("offers each request's skill with it in at least 95% of requests, every offered skill by a location that exists", () => {
    const locations = new Map(skills.map((skill) => [skill.identity, skill.location]));
    const known = new Set(locations.values());
    const share = (pairs: typeof dev, offset: number) =>
      pairs.filter((pair, index) => pair.expected.some((identity) => lines[offset + index]?.message_context.includes(`(${locations.get(identity)})`))).length / pairs.length;
    expect(share(dev, 0)).toBeGreaterThanOrEqual(0.95);
    expect(share(heldOut, dev.length)).toBeGreaterThanOrEqual(0.95);
    for (const line of lines) {
      for (const [, location] of line.message_context.matchAll(/^- \S+ \((\/mnt\/skills\/\S+)\): /gm)) expect(known.has(location as string), location).toBe(true);
    }
  });

  it("in an agent run the model reads the SKILL.md it was offered for the request", async () => {
    const locations = new Map(skills.map((skill) => [skill.identity, skill.location]));
    const cases = dev.filter((pair, index) => lines[index]?.message_context.includes(`\n- ${pair.expected[0]?.split(":").at(-1)} (${locations.get(pair.expected[0] as string)})`)).slice(0, 3);
    expect(cases).toHaveLength(3);
    for (const pair of cases) {
      const location = locations.get(pair.expected[0] as string) as string;
      const values = (await client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content: `please ${pair.query}` }] } })) as { messages: Message[] };
      const read = values.messages.find((message) => message.type === "ai" && message.tool_calls?.length);
      expect(read?.type === "ai" ? read.tool_calls?.[0] : undefined).toMatchObject({ name: "read_file", args: { path: location } });
      const result = values.messages.find((message) => message.type === "tool");
      expect(result?.content).toBe(fileAt(location));
      expect(values.messages.at(-1)?.content).toBe("read it");
    }
  });

  it("reaches every skill through search_skills (by identity) and read_file, whether or not a request was offered it", async () => {
    const pending = [...skills];
    const worker = async (): Promise<void> => {
      for (let skill = pending.shift(); skill; skill = pending.shift()) {
        const values = (await client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content: `find ${skill.identity}` }] } })) as { messages: Message[] };
        const found = values.messages.find((message) => message.type === "tool" && message.name === "search_skills");
        expect(JSON.parse(found?.content as string).skills[0], skill.identity).toMatchObject({ identity: skill.identity, location: skill.location });
        expect(values.messages.find((message) => message.type === "tool" && message.name === "read_file")?.content, skill.identity).toBe(fileAt(skill.location));
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  });

  /** The file the gateway installed at a virtual /mnt/skills path (plugins under plugins/installed/<p>/skills). */
  function fileAt(location: string): string {
    const relative = location.replace(/^\/mnt\/skills\//, "");
    const plugin = /^plugins\/([^/]+)\/(.*)$/.exec(relative);
    return fs.readFileSync(plugin ? path.join(project.dir, "plugins", "installed", plugin[1] as string, "skills", plugin[2] as string) : path.join(project.dir, "skills", relative), "utf8");
  }
});

/** `thinktank ARGS` as a child process in the project; resolves with stdout (rejects with the output on a non-zero exit). */
function runCli(project: ProjectFixture, args: string[]): Promise<string> {
  const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
  const child = spawn(process.execPath, [cli, ...args], { cwd: project.dir, env: testEnv(project.env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`thinktank ${args.join(" ")} exited with ${code}:\n${stderr}`)))));
}
