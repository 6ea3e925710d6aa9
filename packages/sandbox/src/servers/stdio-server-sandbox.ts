import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { hiddenFromHostPrograms, type Config, type HiddenPathsConfig } from "@thinktank/core";
import { createSandboxExecutor } from "../executor/sandbox-executor.js";
import type { SandboxExecutor } from "../sandbox-types.js";
import { serverAvailability, type ServerAvailability } from "./server-availability.js";

/** A stdio MCP server to start in the sandbox, as the MCP manager asks (its SandboxedStdioServer). */
export interface StdioServerSpec {
  /** The server's name: its home is `<data_dir>/mcp-homes/<name>` (made safe as a folder name). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The entry's own environment, placeholders resolved. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly network: readonly string[];
}

/** The command line to spawn (and `release` once it has exited), or why the server cannot start. */
export type StdioServerLaunch =
  | { readonly ok: true; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd: string; release(): void }
  | { readonly ok: false; readonly reason: string };

/** What `createStdioServerSandbox` gives the MCP manager (@thinktank/mcp's StdioSandbox, plus close). */
export interface StdioServerSandbox {
  /** Whether the configured backend runs servers (bubblewrap), and why not (deno, local); asked once. */
  availability(): Promise<ServerAvailability>;
  launch(server: StdioServerSpec): Promise<StdioServerLaunch>;
  /** Closes the executor it made itself (none when one was given). */
  close(): Promise<void>;
}

export interface StdioServerSandboxOptions {
  /** The executor the servers' sandboxes come from (the agent passes its own). @default one made on first use from config, closed by close() */
  readonly executor?: SandboxExecutor;
}

/** The configuration it reads: the sandbox's, the data folder (homes) and what no program may see, mcp.sandbox's limits. */
export type StdioServerSandboxConfig = HiddenPathsConfig & Pick<Config, "env">;

/**
 * Runs stdio MCP servers marked `sandbox: true` in the sandbox, for the MCP manager
 * (McpManagerOptions.stdioSandbox; neither package imports the other: the agent and the CLI wire
 * them). Each start is `SandboxExecutor.startServer` with the server's entry, a home of its own kept
 * across starts (`<data_dir>/mcp-homes/<name>`, npx's and uvx's caches), its `cwd` read-only with the
 * data folder and the other paths no program may see covered, its `network`, and config.mcp.sandbox's
 * limits. On the deno and local backends every server is unavailable with the reason.
 */
export function createStdioServerSandbox(config: StdioServerSandboxConfig, options: StdioServerSandboxOptions = {}): StdioServerSandbox {
  let made: SandboxExecutor | undefined;
  const executor = (): SandboxExecutor => options.executor ?? (made ??= createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}) }));
  let availability: Promise<ServerAvailability> | undefined;
  const homesDir = path.join(config.data_dir, "mcp-homes");
  const hide = hiddenFromHostPrograms(config);
  return {
    availability: () => (availability ??= executor().describeBackend().then((info) => serverAvailability(info.backend))),
    async launch(server) {
      fs.mkdirSync(homesDir, { recursive: true, mode: 0o700 });
      const launch = await executor().startServer({
        command: server.command,
        args: server.args,
        env: server.env,
        homeDir: path.join(homesDir, homeName(server.name)),
        ...(server.cwd ? { cwd: server.cwd } : {}),
        hide,
        network: server.network,
        networkLabel: `mcp ${server.name}`,
        limits: { memoryMb: config.mcp.sandbox.memory_mb, maxProcesses: config.mcp.sandbox.max_processes },
      });
      return launch.ok ? launch : { ok: false, reason: launch.message };
    },
    async close() {
      await made?.close();
    },
  };
}

/** A server's name as a folder name: itself when safe, else with the unsafe characters replaced and a short hash (no two names share a home). */
export function homeName(name: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) && name.length <= 128) return name;
  const readable = name.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^[._-]+/, "").slice(0, 100);
  return `${readable || "server"}-${createHash("sha256").update(name).digest("hex").slice(0, 10)}`;
}
