import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { childNodeOptions, makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// A stdio server that prints what it was given on stderr before it dies: its last stderr line is
// the reason `thinktank mcp list` (and GET /api/mcp/servers, list_servers, the logs) shows, so the
// entry's env values must not come back in it. The real command in a child process, a real server.
const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
const run = promisify(execFile);

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-mcp-stderr-");
});
afterEach(() => temp.cleanup());

// Neither is shaped like a key nor follows a word the log redaction knows ("Bearer", "token", a URL).
const serviceKey = "plain-words-not-key-shaped";
const databasePassword = "correct horse battery staple";

describe("thinktank mcp list with a server that prints its secrets on stderr", () => {
  it("shows the stderr reason with the entry's env values masked, and keeps short values", async () => {
    const leaky = {
      command: process.execPath,
      args: ["-e", "console.error(`logging in as ${process.env.SERVICE_KEY} with ${process.env.DB_PASSWORD} mode ${process.env.MODE}`); process.exit(3)"],
      env: { SERVICE_KEY: serviceKey, DB_PASSWORD: databasePassword, MODE: "dev" },
    };
    fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: { leaky }, skills: {}, plugins: {}, tools: {} }));
    fs.writeFileSync(path.join(temp.dir, "config.yaml"), "mcp:\n  retries: 0\n");
    const { stdout } = await run(process.execPath, [cli, "mcp", "list", "--json"], { cwd: temp.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: childNodeOptions() } });
    const server = (JSON.parse(stdout) as { servers: { name: string; state: string; reason?: string }[] }).servers.find((entry) => entry.name === "leaky");
    expect(server?.state).toBe("unavailable");
    expect(server?.reason).toContain("logging in as [redacted] with [redacted] mode dev");
    expect(stdout).not.toContain(serviceKey);
    expect(stdout).not.toContain(databasePassword);
  }, 60_000);

  it("shows a remote server's failure with its configured header values masked when the server echoes the request", async () => {
    const echo = http.createServer((request, response) => {
      response.writeHead(400, { "content-type": "text/plain" });
      response.end(`bad request, you sent: ${JSON.stringify(request.headers)}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/mcp`;
      const echoing = { type: "http", url, headers: { "X-Service-Key": serviceKey, Authorization: `Basic ${databasePassword.replaceAll(" ", "-")}` } };
      fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: { echoing }, skills: {}, plugins: {}, tools: {} }));
      fs.writeFileSync(path.join(temp.dir, "config.yaml"), "mcp:\n  retries: 0\n");
      const { stdout } = await run(process.execPath, [cli, "mcp", "list", "--json"], { cwd: temp.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: childNodeOptions() } });
      const server = (JSON.parse(stdout) as { servers: { name: string; state: string; reason?: string }[] }).servers.find((entry) => entry.name === "echoing");
      expect(server?.state).toBe("unavailable");
      expect(server?.reason).toContain("HTTP 400");
      expect(server?.reason).toContain('"x-service-key":"[redacted]"');
      expect(stdout).not.toContain(serviceKey);
      expect(stdout).not.toContain(databasePassword.replaceAll(" ", "-"));
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  }, 60_000);
});
