// The healthchecks of docker-compose.yml and the Dockerfile, run as Docker runs them (`node -e ...`
// in the container) against a real gateway and a real agent server: each asks a route that answers
// 200 on the port its service listens on (here a free port stands in for 8001 and 2024). No engine.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { childLines, childNodeOptions, freePort, makeTempDir, nodeArgsFor, repositoryRoot } from "@thinktank/testing";
import { load as parseYaml, YAML11_SCHEMA } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthcheckCommand, type ComposeFile } from "./support/compose-rules.js";

const root = repositoryRoot();
const compose = parseYaml(fs.readFileSync(path.join(root, "docker-compose.yml"), "utf8"), { schema: YAML11_SCHEMA }) as ComposeFile;
let temp: { dir: string; cleanup: () => void };
const children: ChildProcess[] = [];
const ports = { gateway: 0, agent: 0 };

async function startService(args: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, args, {
    cwd: temp.dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp.dir, NODE_OPTIONS: childNodeOptions(), THINKTANK_CONFIG: path.join(temp.dir, "config.yaml"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  await childLines(child).waitFor((line) => /listening on http/.test(line), 150_000);
}

beforeAll(async () => {
  temp = makeTempDir("tt-healthchecks-");
  fs.writeFileSync(path.join(temp.dir, "config.yaml"), "log:\n  level: warn\nsandbox:\n  backend: deno\n");
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  ports.gateway = await freePort();
  ports.agent = await freePort();
  await Promise.all([
    startService([path.join(root, "apps/cli/bin/thinktank.js"), "gateway"], { GATEWAY_PORT: String(ports.gateway) }),
    startService(nodeArgsFor(path.join(root, "apps/agent/src/start.ts")), { AGENT_PORT: String(ports.agent) }),
  ]);
}, 200_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
  temp.cleanup();
});

/** Runs a healthcheck's node arguments with its port replaced by the real server's; the exit code. */
function runCheck(args: string[], from: string, to: number, env: Record<string, string> = {}): number | null {
  const rewritten = args.map((part) => part.replaceAll(`127.0.0.1:${from}/`, `127.0.0.1:${to}/`));
  return spawnSync(process.execPath, rewritten, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 30_000 }).status;
}

describe("the Docker healthchecks against real services", { timeout: 120_000 }, () => {
  it("each Thinktank service's compose healthcheck passes against its real service, and fails on a route that is not there", () => {
    const checked: string[] = [];
    // Services with the same command and healthcheck (agent, agent-a, agent-b) are run once.
    const seen = new Set<string>();
    for (const [name, service] of Object.entries(compose.services)) {
      const command = (service?.command ?? []).join(" ");
      const kind = command.includes("apps/agent/dist/src/start.js") ? "agent" : command.includes("apps/cli/bin/thinktank.js") ? "gateway" : undefined;
      if (!kind || !service) continue;
      checked.push(name);
      const { args, port } = healthcheckCommand(service);
      if (seen.has(`${kind} ${JSON.stringify(args)}`)) continue;
      seen.add(`${kind} ${JSON.stringify(args)}`);
      expect(runCheck(args, port, ports[kind]), `${name}'s healthcheck against a real ${kind}`).toBe(0);
      const wrongRoute = args.map((part) => part.replace("/healthz", "/no-such-route"));
      expect(runCheck(wrongRoute, port, ports[kind]), `${name}'s healthcheck on a missing route`).toBe(1);
    }
    expect(seen.size).toBe(2);
    expect(checked.sort()).toEqual(["agent", "agent-a", "agent-b", "gateway", "gateway-a", "gateway-b"]);
  });

  it("the Dockerfile's HEALTHCHECK (the gateway's, at GATEWAY_PORT) passes against a real gateway, and fails where nothing listens", async () => {
    const dockerfile = fs.readFileSync(path.join(root, "Dockerfile"), "utf8");
    const line = /^\s*CMD (\["node", "-e", .*\])$/m.exec(dockerfile.slice(dockerfile.indexOf("HEALTHCHECK")))?.[1];
    expect(line).toBeDefined();
    const [, ...args] = JSON.parse(line ?? "[]") as string[];
    expect(runCheck(args, "", 0, { GATEWAY_PORT: String(ports.gateway) })).toBe(0);
    expect(runCheck(args, "", 0, { GATEWAY_PORT: String(await freePort()) })).toBe(1);
  });
});
