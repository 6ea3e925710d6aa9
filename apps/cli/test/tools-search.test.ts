import fs from "node:fs";
import path from "node:path";
import { corpusDir, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank tools search` end to end: a real config folder, real catalog files, the real command.
let temp: { dir: string; cleanup: () => void };
const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });
beforeEach(() => {
  temp = makeTempDir("tt-cli-tools-");
  writeTree(temp.dir, {
    "config.yaml": "mcp:\n  catalog_dir: cache\nsearch:\n  default_limit: 2\n  max_limit: 3\n",
    "cache/github.json": JSON.stringify({
      server: "github",
      tools: [
        { name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: object({ title: { type: "string" } }) },
        { name: "list_issues", description: "List issues in a GitHub repository.", inputSchema: object() },
        { name: "create_pull_request", description: "Create a new pull request.", inputSchema: object() },
        { name: "search_code", description: "Search code across repositories.", inputSchema: object() },
      ],
    }),
    "cache/slack.json": JSON.stringify({
      server: "slack",
      tools: [{ name: "slack_post_message", description: "Post a new message to a Slack channel.", inputSchema: object({ text: { type: "string" } }) }],
    }),
    "cache/index.json": "[]",
  });
});
afterEach(() => temp.cleanup());

async function run(args: string[], input?: string): Promise<CapturedRun> {
  return runCaptured(["tools", ...args], { cwd: temp.dir, env: {}, ...(input === undefined ? {} : { input }) });
}

describe("thinktank tools search", () => {
  it("ranks the cached tool lists of config.mcp.catalog_dir, with config's default limit", async () => {
    const result = await run(["search", "post", "a", "message", "to", "slack"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ 1\. slack\/slack_post_message\s+\d+\.\d{3}$/);
  });

  it("prints JSON with --json and more of each tool as --detail grows, capping --limit at search.max_limit", async () => {
    const json = await run(["search", "create issue", "--json", "--detail", "desc", "--limit", "10"]);
    const parsed = JSON.parse(json.stdout) as { query: string; results: { server: string; name: string; description?: string }[] };
    expect(parsed.query).toBe("create issue");
    expect(parsed.results).toHaveLength(3);
    expect(parsed.results[0]).toMatchObject({ server: "github", name: "create_issue", description: "Create a new issue in a GitHub repository." });

    const full = await run(["search", "create issue", "--detail", "full", "--limit", "1"]);
    // The path `thinktank mcp generate` writes the wrapper to (and search_tools names), not the raw tool name.
    expect(full.stdout).toContain("wrapper: /mnt/code-api/servers/github/createIssue.ts");
    expect(full.stdout).toContain('input: {"type":"object","properties":{"title":{"type":"string"}}}');
  });

  it("searches another folder with --catalog and filters with --server", async () => {
    writeTree(temp.dir, { "other/jira.json": JSON.stringify({ server: "jira", tools: [{ name: "jira_post", description: "Create Jira issues.", inputSchema: object() }] }) });
    const result = await run(["search", "create issue", "--catalog", "other", "--json"]);
    expect((JSON.parse(result.stdout) as { results: { name: string }[] }).results.map((r) => r.name)).toEqual(["jira_post"]);
    const filtered = await run(["search", "issue", "--server", "github", "--json", "--limit", "3"]);
    expect((JSON.parse(filtered.stdout) as { results: { server: string }[] }).results.every((r) => r.server === "github")).toBe(true);
  });

  it("runs one search per line of a --batch file, reporting bad lines and exiting 1", async () => {
    const lines = [
      JSON.stringify({ id: "g1", query: "post a slack message", expected: [] }),
      "",
      JSON.stringify({ query: "list issues", server: "github", limit: 1, detail: "desc" }),
      "{not json",
      JSON.stringify({ query: "issues", server: "gitlab" }),
      JSON.stringify({ text: "no query" }),
    ];
    writeTree(temp.dir, { "queries.jsonl": lines.join("\n") });
    const result = await run(["search", "--batch", "queries.jsonl"]);
    expect(result.code).toBe(1);
    const out = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(out).toHaveLength(5);
    expect(out[0]).toMatchObject({ query: "post a slack message", results: [{ server: "slack", name: "slack_post_message" }, expect.anything()] });
    expect(out[1]).toEqual({ query: "list issues", results: [{ server: "github", name: "list_issues", score: expect.any(Number), description: "List issues in a GitHub repository." }] });
    expect(out[2]).toMatchObject({ line: 4, error: { code: "INVALID_JSON" } });
    expect(out[3]).toMatchObject({ line: 5, error: { code: "MCP_SERVER_NOT_FOUND", message: expect.stringContaining("known servers: github, slack") } });
    expect(out[4]).toMatchObject({ line: 6, error: { code: "VALIDATION_FAILED" } });
    expect(result.stderr).toContain("3 of the batch's lines failed");
  });

  it("reads a batch from stdin with --batch -", async () => {
    const result = await run(["search", "--batch", "-", "--limit", "1"], `${JSON.stringify({ query: "search code" })}\n`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ query: "search code", results: [{ server: "github", name: "search_code" }] });
  });

  it("explains usage mistakes with exit code 2", async () => {
    for (const args of [["search"], ["search", "x", "--detail", "all"], ["search", "x", "--limit", "0"], ["search", "x", "--batch", "f.jsonl"], ["search", "x", "--bogus"]]) {
      const result = await run(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("Usage: thinktank tools search QUERY");
    }
    expect((await run([])).code).toBe(2);
    expect((await run(["frobnicate"])).stderr).toContain("unknown subcommand 'frobnicate'");
    expect((await run(["help"])).code).toBe(0);
  });

  it("names the known servers for an unknown --server and says where the catalog was looked for", async () => {
    const unknown = await run(["search", "issue", "--server", "gitlab"]);
    expect(unknown).toMatchObject({ code: 1, stderr: "thinktank tools: MCP_SERVER_NOT_FOUND: unknown server 'gitlab'; known servers: github, slack\n" });
    fs.rmSync(path.join(temp.dir, "cache"), { recursive: true });
    const missing = await run(["search", "issue"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no tool catalog at ${path.join(temp.dir, "cache")}`);
    fs.mkdirSync(path.join(temp.dir, "cache"));
    expect((await run(["search", "issue"])).stderr).toContain("no cached tool lists in");
  });

  it("searches the whole corpus catalog", needs("corpus"), async () => {
    const result = await run(["search", "open a pull request on github", "--catalog", path.join(corpusDir(), "mcp-tools"), "--json", "--limit", "1"]);
    expect(JSON.parse(result.stdout)).toMatchObject({ results: [{ server: "github", name: "create_pull_request" }] });
  });
});
