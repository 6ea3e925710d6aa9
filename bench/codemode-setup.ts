// Shared set-up of bench/codemode.bench.ts: the reference servers behind a manager, the bubblewrap
// sandbox with its warm pool, and CodeMode, in a temp folder. Not a benchmark itself.
import fs from "node:fs";
import path from "node:path";
import { CodeMode, McpToolInvoker } from "@thinktank/codemode";
import { loadConfig, type Config } from "@thinktank/core";
import { McpManager, type CatalogServer } from "@thinktank/mcp";
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { createSandboxExecutor, type SandboxExecutor } from "@thinktank/sandbox";
import { makeTempDir } from "@thinktank/testing";

export interface CodeModeBench {
  readonly root: string;
  readonly filesDir: string;
  readonly config: Config;
  readonly manager: McpManager;
  readonly executor: SandboxExecutor;
  readonly codeMode: CodeMode;
  close(): Promise<void>;
}

export async function openCodeModeBench(): Promise<CodeModeBench> {
  const temp = makeTempDir("tt-bench-codemode-");
  fs.chmodSync(temp.dir, 0o755);
  const filesDir = path.join(temp.dir, "files");
  fs.mkdirSync(filesDir);
  const loaded = loadConfig({ cwd: temp.dir, env: {} });
  const config: Config = {
    ...loaded,
    env: { PATH: process.env.PATH },
    sandbox: { ...loaded.sandbox, backend: "bubblewrap", warm_pool_size: 2 },
    mcp: { ...loaded.mcp, connect_timeout_ms: 30_000 },
  };
  const manager = new McpManager({ mcp: config.mcp, env: config.env }, {
    everything: referenceStdioEntry("server-everything"),
    filesystem: referenceStdioEntry("server-filesystem", [filesDir]),
    memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(temp.dir, "memory.json") }),
  });
  const executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "sandbox") });
  const codeMode = new CodeMode({ config, executor, invokers: [new McpToolInvoker(manager)], runtimeDir: path.join(temp.dir, "bridges") });
  await codeMode.prepare();
  return {
    root: temp.dir,
    filesDir,
    config,
    manager,
    executor,
    codeMode,
    async close() {
      await codeMode.close();
      await manager.close();
      await executor.close();
      temp.cleanup();
    },
  };
}

/** A catalog of exactly `count` tools grown from a real one: its servers repeated under new names. */
export function growCatalog(servers: readonly CatalogServer[], count: number): CatalogServer[] {
  const grown: CatalogServer[] = [];
  let total = 0;
  for (let copy = 0; total < count; copy++) {
    for (const server of servers) {
      if (total >= count) break;
      const tools = server.tools.slice(0, count - total);
      grown.push({ server: copy === 0 ? server.server : `${server.server}-copy${copy}`, tools });
      total += tools.length;
    }
  }
  return grown;
}
