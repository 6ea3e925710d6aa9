// Production runs the build: plain node (no tsx, no "development" export condition, which the
// other tests set) runs dist/ for the bin, `thinktank start` and both servers, and the files the
// code reads beside its own sources are found from dist/ too.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { freePort, makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = repositoryRoot();
const bin = path.join(root, "apps/cli/bin/thinktank.js");
let temp: { dir: string; cleanup: () => void };

/** This process's environment as a user's shell has it: without the condition vitest adds for the tests. */
function plainEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const { NODE_OPTIONS: _conditions, ...env } = process.env;
  return { ...env, ...extra };
}

/** A process's arguments (Linux /proc), the node binary left out. */
function argumentsOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).slice(1);
}

beforeAll(() => {
  // dist/ as the build makes it from the current sources (seconds when it is up to date).
  const tsc = createRequire(path.join(root, "package.json")).resolve("typescript/bin/tsc");
  spawnSync(process.execPath, [tsc, "-b", "apps/cli"], { cwd: root, stdio: "inherit" });
  temp = makeTempDir("tt-compiled-");
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.mkdirSync(path.join(temp.dir, "skills", "public"), { recursive: true });
  fs.writeFileSync(path.join(temp.dir, "config.yaml"), "log:\n  level: warn\nsandbox:\n  backend: local\n");
}, 300_000);
afterAll(() => temp.cleanup());

describe("the build, run with plain node", () => {
  it("thinktank --help", () => {
    const result = spawnSync(process.execPath, [bin, "--help"], { cwd: temp.dir, env: plainEnv(), encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: thinktank <command> \[options\]\n/);
  });

  it("thinktank start runs both servers from dist/ and gets ready", async () => {
    const [gatewayPort, agentPort] = [await freePort(), await freePort()];
    const env = plainEnv({ THINKTANK_CONFIG: path.join(temp.dir, "config.yaml"), GATEWAY_PORT: String(gatewayPort), AGENT_PORT: String(agentPort), THINKTANK_API_KEY: "" });
    const child = spawn(process.execPath, [bin, "start"], { cwd: temp.dir, env, stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const ready = new Promise<void>((resolve, reject) => {
      const onLine = (line: string): void => {
        lines.push(line);
        if (line.startsWith("[start] ready:")) resolve();
      };
      readline.createInterface({ input: child.stdout }).on("line", onLine);
      readline.createInterface({ input: child.stderr }).on("line", onLine);
      void exited.then(() => reject(new Error(`thinktank start exited before ready:\n${lines.join("\n")}`)));
    });
    try {
      await ready;
      const pid = (service: string): number => Number(lines.map((line) => new RegExp(`^\\[start\\] ${service} started \\(pid (\\d+)\\)$`).exec(line)?.[1]).find(Boolean));
      expect(argumentsOf(pid("gateway"))).toEqual([bin, "gateway"]);
      expect(argumentsOf(pid("agent"))).toEqual([path.join(root, "apps/agent/dist/src/start.js")]);
      expect(await (await fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).json()).toMatchObject({ status: "ok", host_programs: { isolation: expect.any(String) } });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 180_000);

  it("code API generation finds its runtime files, which live with the sources", () => {
    const outDir = path.join(temp.dir, "code-api");
    const program = `const { generateCodeApi } = await import("@thinktank/codegen");
await generateCodeApi({ servers: [{ server: "alpha", tools: [{ name: "one", inputSchema: { type: "object" } }] }], outDir: ${JSON.stringify(outDir)} });`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", program], { cwd: path.join(root, "apps/cli"), env: plainEnv(), encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(fs.readFileSync(path.join(outDir, "runtime/call-mcp-tool.ts"), "utf8")).toBe(fs.readFileSync(path.join(root, "packages/codegen/src/runtime/typescript/call-mcp-tool.ts"), "utf8"));
    expect(fs.readFileSync(path.join(outDir, "python/thinktank_bridge.py"), "utf8")).toBe(fs.readFileSync(path.join(root, "packages/codegen/src/runtime/python/thinktank_bridge.py"), "utf8"));
  });
});
