import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { permittedTools } from "./permitted-tools.js";
import { readSkillContextSpec } from "./skill-context-spec.js";

const temp = makeTempDir("tt-skill-context-");
afterAll(() => temp.cleanup());
const objectSchema = { type: "object", properties: { text: { type: "string" } } };

function skill(name: string, files: Record<string, unknown>): string {
  const tree: Record<string, string> = { [`${name}/SKILL.md`]: `---\nname: ${name}\ndescription: d\n---\nbody\n` };
  for (const [file, content] of Object.entries(files)) tree[`${name}/${file}`] = typeof content === "string" ? content : JSON.stringify(content);
  writeTree(temp.dir, tree);
  return path.join(temp.dir, name);
}

function problemsOf(dir: string): string[] {
  try {
    readSkillContextSpec(dir);
  } catch (error) {
    if (isThinktankError(error) && error.code === "SKILL_CONTEXT_INVALID") return (error.details?.problems as string[]) ?? [];
    throw error;
  }
  throw new Error("expected SKILL_CONTEXT_INVALID");
}

describe("readSkillContextSpec", () => {
  it("reads MCP references, script tools (scripts/ relative) and file or MCP resources; both files are optional", () => {
    const dir = skill("full", {
      "scripts/count.py": "print('{}')\n",
      "references/guide.md": "guide",
      "tools.json": {
        tools: [
          { server: "github", tool: "create.issue" },
          { server: "everything", tool: "echo", name: "say", description: "Say it" },
          { name: "count", description: "Count", runtime: "python", script: "scripts/count.py", input_schema: objectSchema, timeout: 5, parallel_capable: true },
        ],
      },
      "resources.json": [
        { uri: "skill://guide", description: "The guide", file: "./references/guide.md" },
        { uri: "skill://remote", description: "Remote", server: "everything", resource: "demo://x", mime_type: "text/plain" },
      ],
    });
    const spec = readSkillContextSpec(dir);
    expect(spec.tools).toEqual([
      { kind: "mcp", server: "github", tool: "create.issue", name: "create_issue" },
      { kind: "mcp", server: "everything", tool: "echo", name: "say", description: "Say it" },
      expect.objectContaining({ kind: "script", name: "count", runtime: "python", script: "scripts/count.py", timeout: 5, parallel_capable: true, enabled: true, scriptPath: fs.realpathSync(path.join(dir, "scripts/count.py")) }),
    ]);
    expect(spec.resources).toEqual([
      { uri: "skill://guide", description: "The guide", source: { kind: "file", file: fs.realpathSync(path.join(dir, "references/guide.md")), relative: "./references/guide.md" } },
      { uri: "skill://remote", description: "Remote", mimeType: "text/plain", source: { kind: "mcp", server: "everything", uri: "demo://x" } },
    ]);
    expect(readSkillContextSpec(skill("plain", {}))).toEqual({ tools: [], resources: [] });
  });

  it("refuses malformed JSON and a wrong top level", () => {
    expect(problemsOf(skill("bad-json", { "tools.json": "{ not json" }))).toEqual([expect.stringMatching(/^tools.json: not valid JSON/)]);
    expect(problemsOf(skill("bad-top", { "resources.json": { items: [] } }))).toEqual(['resources.json: expected {"resources": [...]} or a list']);
  });

  it("reports every bad field at once, with its path", () => {
    fs.mkdirSync(path.join(temp.dir, "outside"), { recursive: true });
    fs.writeFileSync(path.join(temp.dir, "outside", "evil.sh"), "echo");
    const dir = skill("many", {
      "scripts/ok.sh": "echo {}",
      "tools.json": {
        tools: [
          "text",
          { server: "", tool: "x" },
          { name: "bad name!", description: "d", runtime: "ruby", script: "ok.sh", input_schema: { type: "string" } },
          { name: "escape", description: "d", runtime: "shell", script: "../../outside/evil.sh", input_schema: objectSchema },
          { name: "missing", description: "d", runtime: "shell", script: "nope.sh", input_schema: objectSchema, timeout: -1 },
          { server: "a", tool: "dup" },
          { server: "b", tool: "dup" },
        ],
      },
      "resources.json": { resources: [{ uri: "r", description: "both", file: "SKILL.md", server: "s" }, { description: "no uri", file: "SKILL.md" }, { uri: "x", description: "gone", file: "nope.md" }] },
    });
    const problems = problemsOf(dir);
    expect(problems).toEqual(
      expect.arrayContaining([
        "tools.json: tools[0]: expected an object",
        "tools.json: tools[1].server: expected a non-empty string",
        "tools.json: tools[2].name: 'bad name!' must be 1-64 characters of [A-Za-z0-9_-]",
        "tools.json: tools[2].runtime: expected one of python, node, shell",
        'tools.json: tools[2].input_schema: expected a JSON Schema with "type": "object"',
        "tools.json: tools[3].script: '../../outside/evil.sh' must be a relative path inside the skill, without '..'",
        expect.stringMatching(/^tools.json: tools\[4\].script: 'nope.sh' does not exist/),
        "tools.json: tools[4].timeout: expected a positive number of seconds",
        "tools.json: two tools are named 'dup'; give one a \"name\"",
        'resources.json: resources[0]: give either "file" (a file of the skill) or "server" (an MCP server)',
        "resources.json: resources[1].uri: required",
        expect.stringMatching(/^resources.json: resources\[2\].file: 'nope.md' does not exist/),
      ]),
    );
    expect(problems).toHaveLength(12);
    const linked = skill("linked", { "tools.json": { tools: [{ name: "l", description: "d", runtime: "shell", script: "link.sh", input_schema: objectSchema }] } });
    fs.mkdirSync(path.join(linked, "scripts"), { recursive: true });
    fs.symlinkSync(path.join(temp.dir, "outside", "evil.sh"), path.join(linked, "scripts", "link.sh"));
    expect(problemsOf(linked)).toEqual([expect.stringMatching(/^tools.json: tools\[0\].script: 'link.sh' leads outside/)]);
  });
});

describe("readSkillContextSpec: trust and network of script tools", () => {
  it("gives script tools the skill's trust and folder (tools.json cannot say trusted), and reads their network hosts", () => {
    const dir = skill("networked", {
      "scripts/fetch.py": "print('{}')\n",
      "tools.json": { tools: [{ name: "fetch", description: "Fetch", runtime: "python", script: "fetch.py", input_schema: objectSchema, network: ["api.github.com", "*.example.com:443"], trusted: true }] },
    });
    const [untrusted] = readSkillContextSpec(dir, { trusted: false, containerDir: "/mnt/skills/custom/networked" }).tools;
    expect(untrusted).toMatchObject({ kind: "script", trusted: false, network: ["api.github.com", "*.example.com:443"], folder: { hostDir: dir, sandboxDir: "/mnt/skills/custom/networked" } });
    expect(readSkillContextSpec(dir, { trusted: true, containerDir: "/mnt/skills/custom/networked" }).tools[0]).toMatchObject({ trusted: true });
    expect(readSkillContextSpec(dir).warnings).toEqual(["tools.json: tools[0].trusted is ignored: a skill's tools cannot declare themselves trusted; an administrator marks the skill trusted"]);
    // No origin: untrusted, and no folder to run it in.
    expect(readSkillContextSpec(dir).tools[0]).toMatchObject({ trusted: false });
    expect(readSkillContextSpec(dir).tools[0]).not.toHaveProperty("folder");
  });

  it("refuses network entries that are not host patterns", () => {
    const dir = skill("bad-network", {
      "scripts/fetch.py": "print('{}')\n",
      "tools.json": {
        tools: [
          { name: "a", description: "d", runtime: "python", script: "fetch.py", input_schema: objectSchema, network: "api.github.com" },
          { name: "b", description: "d", runtime: "python", script: "fetch.py", input_schema: objectSchema, network: ["https://api.github.com/x", 443, "ok.example.com", "ok.example.com"] },
        ],
      },
    });
    expect(problemsOf(dir)).toEqual([
      'tools.json: tools[0].network: expected a list of hosts such as ["api.github.com", "*.example.com:443"]',
      'tools.json: tools[1].network[0]: expected host, host:port or *.domain[:port], got "https://api.github.com/x"',
      "tools.json: tools[1].network[1]: expected host, host:port or *.domain[:port], got 443",
      "tools.json: tools[1].network: lists a host twice",
    ]);
  });
});

describe("permittedTools", () => {
  it("does not restrict without allowed-tools", () => {
    expect(permittedTools([])).toBeUndefined();
  });

  it("maps Claude Code names and patterns to the agent's tools and always keeps the loaders", () => {
    const permitted = permittedTools(["Read", "Edit", "Bash(git add:*)", "execute_code", "mcp__github__create_issue"]);
    expect([...(permitted ?? [])].sort()).toEqual(
      ["Bash", "Edit", "Read", "bash", "execute_code", "github__create_issue", "leave_skill", "mcp__github__create_issue", "read_file", "read_resource", "search_tools", "str_replace", "view_skill"].sort(),
    );
    expect(permitted?.has("write_file")).toBe(false);
  });
});
