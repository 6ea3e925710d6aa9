import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { testEnv } from "./agent-process.js";
import { serviceListening } from "./child-output.js";
import { repositoryRoot } from "./corpus.js";
import { freePort } from "./free-port.js";
import { makeTempDir, writeTree } from "./temp-dir.js";

export interface ProjectFixture {
  /** The project folder: config.yaml, script.yaml, extensions_config.json, skills/, plugins/. */
  readonly dir: string;
  /** THINKTANK_CONFIG, AGENT_PORT and GATEWAY_PORT for this project. */
  readonly env: Record<string, string>;
  readonly gatewayPort: number;
  cleanup(): void;
}

export interface ProjectFixtureOptions {
  /** The scripted model's script (YAML). */
  readonly script: string;
  /** More config.yaml lines (top-level keys). */
  readonly config?: readonly string[];
  /** extensions_config.json. @default empty sections */
  readonly extensions?: Record<string, unknown>;
  /** More files, relative to the project. */
  readonly files?: Record<string, string>;
  /** More environment variables for the processes (a fake provider key a test checks never leaks, say). @default none */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * A project folder the gateway and the agent server share, with a scripted model and free ports.
 * The folder is traversable (0755) so the unprivileged sandbox user reaches the workspaces when
 * the tests run as root.
 */
export async function makeProjectFixture(options: ProjectFixtureOptions): Promise<ProjectFixture> {
  const temp = makeTempDir("tt-agent-e2e-");
  fs.chmodSync(temp.dir, 0o755);
  const [agentPort, gatewayPort] = [await freePort(), await freePort()];
  writeTree(temp.dir, {
    "config.yaml": [
      "data_dir: data",
      "log:",
      "  level: warn",
      "models:",
      "  default: scripted",
      "  providers:",
      "    scripted:",
      "      provider: scripted",
      "      script: script.yaml",
      ...(options.config ?? []),
      "",
    ].join("\n"),
    "script.yaml": options.script,
    "extensions_config.json": `${JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {}, ...options.extensions }, null, 2)}\n`,
    ...options.files,
  });
  for (const folder of ["skills/public", "skills/custom", "plugins"]) fs.mkdirSync(path.join(temp.dir, folder), { recursive: true });
  return {
    dir: temp.dir,
    gatewayPort,
    env: { ...options.env, THINKTANK_CONFIG: path.join(temp.dir, "config.yaml"), AGENT_PORT: String(agentPort), GATEWAY_PORT: String(gatewayPort) },
    cleanup: temp.cleanup,
  };
}

export interface GatewayProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** `thinktank gateway` as a child process for the project; resolves when it reports that it listens. */
export async function startGatewayProcess(project: ProjectFixture, timeoutMs = 150_000): Promise<GatewayProcess> {
  const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
  // The IPC channel carries its "listening" message (and stops it should this process die).
  const child: ChildProcess = spawn(process.execPath, [cli, "gateway"], { cwd: project.dir, env: testEnv(project.env), stdio: ["ignore", "pipe", "pipe", "ipc"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.once("exit", () => {
        clearTimeout(killer);
        resolve();
      });
      child.kill("SIGTERM");
    });
  try {
    await serviceListening(child, timeoutMs, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${project.gatewayPort}`, stop };
}

/** A JSON request to the gateway; answers the status and the parsed body. */
export async function gatewayRequest(gateway: GatewayProcess, method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
