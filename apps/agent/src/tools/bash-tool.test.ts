import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { createSandboxExecutor, VirtualFileSystem, type SandboxExecutor } from "@thinktank/sandbox";
import { SkillsSnapshotter, defaultSkillSources } from "@thinktank/skills";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBashTool } from "./bash-tool.js";

// The network wiring of bash (what the sandbox and its egress proxy do is tested in packages/sandbox):
// sandbox.network.allow reaches the sandbox as the run's patterns, and the description names them.
// The deno backend runs everywhere; its simulated shell's curl goes through the proxy as bubblewrap's does.
describe("bash with sandbox.network.allow", () => {
  const temp = makeTempDir("tt-bash-tool-");
  let server: http.Server;
  let port: number;
  let executor: SandboxExecutor;
  let skills: SkillsSnapshotter;
  let files: VirtualFileSystem;

  beforeAll(async () => {
    fs.chmodSync(temp.dir, 0o755);
    server = http.createServer((request, response) => response.end(`reached ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    const loaded = loadConfig({ cwd: temp.dir, env: {} });
    executor = createSandboxExecutor({ config: { ...loaded, sandbox: { ...loaded.sandbox, backend: "deno", warm_pool_size: 0, network: { allow: [], allowed_private: [`127.0.0.1:${port}`] } } }, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "runtime") });
    skills = new SkillsSnapshotter({ sources: defaultSkillSources(path.join(temp.dir, "skills")), settings: { read: async () => ({ document: {}, revision: 1 }) }, watch: false });
    const folders = { workspace: executor.workspaceFor("bash-network"), uploads: path.join(temp.dir, "uploads"), outputs: path.join(temp.dir, "outputs") };
    files = new VirtualFileSystem({ skills, folders });
  });
  afterAll(async () => {
    skills.close();
    await executor.close();
    await new Promise((resolve) => server.close(resolve));
    temp.cleanup();
  });

  it("reaches the configured hosts only, and says which in its description", async () => {
    const bash = createBashTool({ executor, files, defaultTimeoutSeconds: 60, maxTimeoutSeconds: 60, network: [`127.0.0.1:${port}`], threadId: "bash-network" });
    expect(bash.description).toContain(`no network but these hosts, through the sandbox's proxy, which curl, wget and pip find in HTTPS_PROXY: 127.0.0.1:${port}`);
    const output = (await bash.invoke({ command: `curl -s http://127.0.0.1:${port}/allowed; echo; curl -s http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}/other` })) as string;
    expect(output).toContain(`reached /allowed`);
    expect(output).toContain("refused: port");
    const without = createBashTool({ executor, files, defaultTimeoutSeconds: 60, maxTimeoutSeconds: 60 });
    expect(without.description).toContain("(no network)");
    expect((await without.invoke({ command: `curl -s http://127.0.0.1:${port}/allowed` })) as string).not.toContain("reached");
  });
});
