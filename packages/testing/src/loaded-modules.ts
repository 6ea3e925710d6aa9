import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { childRuntime } from "./child-runtime.js";
import { repositoryRoot } from "./corpus.js";
import { makeTempDir } from "./temp-dir.js";

/**
 * The URLs of the modules a fresh node process loads through the ES module loader (CommonJS
 * required by CommonJS does not show) when it imports `specifier` from the repository's root: the
 * workspaces' build or their sources through tsx, as the processes tests start run them
 * (childRuntime). For tests that keep a heavy dependency out of a process's start-up.
 */
export async function loadedModules(specifier: string): Promise<string[]> {
  const temp = makeTempDir("tt-loaded-modules-");
  try {
    const file = path.join(temp.dir, "modules.txt");
    const hook = new URL("./loaded-modules-hook.mjs", import.meta.url).href;
    const register = `import { register } from "node:module"; register(${JSON.stringify(hook)}, { data: { file: ${JSON.stringify(file)} } });`;
    const runtime = childRuntime() === "sources" ? ["--conditions=development", "--import", import.meta.resolve("tsx")] : [];
    const args = [...runtime, "--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`];
    await promisify(execFile)(process.execPath, args, { cwd: repositoryRoot(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" }, timeout: 120_000 });
    return fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
  } finally {
    temp.cleanup();
  }
}
