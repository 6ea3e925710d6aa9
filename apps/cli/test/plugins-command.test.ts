import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { buildTarGz } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-plugins-");
  writeTree(temp.dir, {
    "config.yaml": "plugins:\n  path: plugins\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "src/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", version: "1.2.0" }),
    "src/sales/commands/call-prep.md": "---\ndescription: Prepare\n---\nPrepare $ARGUMENTS",
    "src/sales/skills/research/SKILL.md": "---\nname: Research\ndescription: r\n---\n",
    "market/.claude-plugin/marketplace.json": JSON.stringify({ name: "m", plugins: [{ name: "legal", source: "./legal" }, { name: "far", source: { source: "url", url: "ext::sh -c touch% /tmp/tt-cli-pwned" } }] }),
    "market/legal/commands/review.md": "Review $1",
  });
});
afterEach(() => temp.cleanup());

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd: temp.dir, env: {} });

describe("thinktank plugins", () => {
  it("installs from a path and from a marketplace, then lists them", async () => {
    expect(await run("plugins", "list")).toMatchObject({ code: 0, stdout: "no plugins installed\n" });
    const first = await run("plugins", "install", "src/sales");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("installed sales 1.2.0 (enabled, untrusted): 1 skills, 1 commands, 0 agents, 0 servers");
    expect(first.stdout).toContain(`warning: skills/research/SKILL.md: name "Research" may only contain lowercase letters a-z, digits and hyphens`);
    const second = await run("plugins", "install", "--marketplace", "market", "--plugin", "legal", "--trusted", "--json");
    expect(JSON.parse(second.stdout)).toMatchObject({ name: "legal", trusted: true, scripts_approved: false, source: { type: "marketplace", marketplaceName: "m" } });
    const listed = await run("plugins", "list");
    expect(listed.stdout).toMatch(/legal\s+-\s+enabled\s+trusted\s+0 skills, 1 commands/);
    expect(listed.stdout).toMatch(/sales\s+1\.2\.0\s+enabled\s+untrusted\s+1 skills, 1 commands/);
    const json = JSON.parse((await run("plugins", "list", "--json")).stdout) as { plugins: { name: string }[] };
    expect(json.plugins.map((p) => p.name)).toEqual(["legal", "sales"]);
    expect(JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")).plugins).toEqual({ sales: { enabled: true }, legal: { enabled: true, trusted: true } });
  });

  it("warns once on stderr about a deprecated config key, and reads stdio_servers: deny as host_programs: deny", async () => {
    fs.writeFileSync(path.join(temp.dir, "config.yaml"), "plugins:\n  stdio_servers: deny\n");
    const listed = await run("plugins", "list", "--json");
    expect(listed.code).toBe(0);
    expect(listed.stderr.match(/thinktank: warning: .*plugins\.stdio_servers is deprecated: use plugins\.host_programs/g)).toHaveLength(1);
    expect(JSON.parse(listed.stdout)).toEqual({ plugins: [] });
  });

  it("reports errors with their code and usage mistakes with exit code 2", async () => {
    await run("plugins", "install", "src/sales");
    expect(await run("plugins", "install", "src/sales")).toMatchObject({ code: 1, stderr: expect.stringContaining("PLUGIN_NAME_CONFLICT") });
    expect(await run("plugins", "install", "--marketplace", "market", "--plugin", "far")).toMatchObject({ code: 1, stderr: expect.stringContaining("INVALID_SOURCE: git URL") });
    expect(await run("plugins", "install")).toMatchObject({ code: 2, stderr: expect.stringContaining("thinktank plugins install: expected one PATH") });
    expect((await run("plugins", "install")).stderr).toContain("Usage: thinktank plugins install PATH | NAME@MARKETPLACE | --marketplace M --plugin P [--strict] [--trusted] [--json]");
    expect((await run("plugins", "install", "--marketplace", "market")).code).toBe(2);
    expect(await run("plugins", "remove")).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown subcommand 'remove'") });
    expect(await run("plugins", "help")).toMatchObject({ code: 0, stderr: "", stdout: expect.stringContaining("thinktank plugins list [--json]") });
    expect((await run("plugins", "list", "--bogus")).code).toBe(2);
  });

  it("installs and updates a plugin from an archive source served over HTTP, showing its sha256; refuses a command source", async () => {
    let archive = buildTarGz([
      { name: "tool-1.0.0/.claude-plugin/plugin.json", data: JSON.stringify({ name: "tool", version: "1.0.0" }) },
      { name: "tool-1.0.0/commands/go.md", data: "Go $ARGUMENTS" },
    ]);
    const server = http.createServer((request, response) => {
      if (request.url === "/tool.tar.gz") response.writeHead(200, { "content-length": String(archive.length) }).end(archive);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tool.tar.gz`;
      const hex = (bytes: Buffer): string => crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 12);
      writeTree(temp.dir, {
        "config.yaml": "plugins:\n  path: plugins\n  fetch:\n    allow_http: true\n    timeout_seconds: 10\n",
        "shop/.claude-plugin/marketplace.json": JSON.stringify({
          name: "shop",
          plugins: [
            { name: "tool", source: { source: "archive", url } },
            { name: "built", source: { source: "command", command: "sh", args: ["-c", "exit 0"] } },
          ],
        }),
      });
      expect((await run("marketplace", "add", "./shop", "--name", "shop")).code).toBe(0);
      const first = archive;
      const installed = await run("plugins", "install", "--marketplace", "shop", "--plugin", "tool");
      expect(installed).toMatchObject({ code: 0, stdout: expect.stringContaining(`installed tool 1.0.0 at sha256:${hex(first)} (enabled, untrusted): 0 skills, 1 commands`) });
      expect(fs.readFileSync(path.join(temp.dir, "plugins", "installed", "tool", "commands", "go.md"), "utf8")).toBe("Go $ARGUMENTS");
      archive = buildTarGz([
        { name: "tool-1.0.0/.claude-plugin/plugin.json", data: JSON.stringify({ name: "tool", version: "1.0.0" }) },
        { name: "tool-1.0.0/commands/go.md", data: "Go faster $ARGUMENTS" },
      ]);
      const updated = await run("plugins", "update", "tool");
      expect(updated).toMatchObject({ code: 0, stdout: expect.stringContaining(`updated tool to 1.0.0 at sha256:${hex(archive)} (from 1.0.0 at sha256:${hex(first)})`) });
      const refused = await run("plugins", "install", "--marketplace", "shop", "--plugin", "built");
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("UNSUPPORTED_SOURCE") });
      expect(refused.stderr).toContain("would run a program from the marketplace on this host");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
