import fs from "node:fs";
import path from "node:path";
import { makeTempDir, startGitHttpServer, writeTree, type GitHttpServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

let temp: { dir: string; cleanup: () => void };
let git: GitHttpServer;

beforeAll(async () => {
  temp = makeTempDir("tt-cli-market-");
  git = await startGitHttpServer(path.join(temp.dir, "git"));
  writeTree(temp.dir, {
    "project/config.yaml": `plugins:\n  path: plugins\n  fetch:\n    github_url: ${git.url}\n    allow_http: true\n    timeout_seconds: 20\n`,
    "project/extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
  git.commit("acme/market", {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "acme", plugins: [{ name: "notes", source: "./notes", description: "Take notes" }] }),
    "notes/.claude-plugin/plugin.json": JSON.stringify({ name: "notes", version: "1.0.0" }),
    "notes/commands/note.md": "Note $ARGUMENTS",
  });
});
afterAll(async () => {
  await git.close();
  temp.cleanup();
});

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd: path.join(temp.dir, "project"), env: {} });

describe("thinktank marketplace", () => {
  it("adds from owner/repo, lists, installs NAME@MARKETPLACE, updates both, removes", async () => {
    const added = await run("marketplace", "add", "acme/market", "--name", "team");
    expect(added).toMatchObject({ code: 0, stdout: expect.stringMatching(/^added team {2}github acme\/market {2}[0-9a-f]{12} {2}1 plugins\n$/) });
    expect((await run("marketplace", "list")).stdout).toMatch(/^team {2}github acme\/market/);
    expect((await run("marketplace", "list", "team")).stdout).toMatch(/^notes\s+-\s+relative\s+-\n$/);
    const installed = await run("plugins", "install", "notes@team");
    expect(installed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^installed notes 1\.0\.0 at [0-9a-f]{12} \(enabled, untrusted\): 0 skills, 1 commands/) });
    expect((await run("marketplace", "list", "team")).stdout).toMatch(/notes\s+-\s+relative\s+installed 1\.0\.0/);

    git.commit("acme/market", { "notes/.claude-plugin/plugin.json": JSON.stringify({ name: "notes", version: "1.1.0" }) });
    expect((await run("marketplace", "update", "team")).code).toBe(0);
    const updated = await run("plugins", "update", "notes", "--json");
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: "notes", version: "1.1.0", previous: { version: "1.0.0" }, versions: { update_available: false } });

    expect(await run("marketplace", "add", "--upload-pack=touch /tmp/tt-cli-pwned")).toMatchObject({ code: 2 });
    expect(await run("marketplace", "add", "--", "--upload-pack=touch")).toMatchObject({ code: 1, stderr: expect.stringContaining("INVALID_SOURCE") });
    expect(await run("marketplace", "remove", "team")).toMatchObject({ code: 0, stdout: "removed team\n" });
    expect((await run("marketplace", "list")).stdout).toBe("no marketplaces added\n");
    expect(await run("plugins", "update", "notes")).toMatchObject({ code: 1, stderr: expect.stringContaining("MARKETPLACE_NOT_FOUND") });
    expect(fs.existsSync("/tmp/tt-cli-pwned")).toBe(false);
  });
});
