import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The folder of an installed npm package (a dependency of @thinktank/sandbox), or undefined. */
export function packageDir(name: string, from: NodeJS.Require = require): string | undefined {
  try {
    return path.dirname(from.resolve(`${name}/package.json`));
  } catch {
    // A package whose exports hide package.json: walk up from its entry.
  }
  try {
    for (let dir = path.dirname(from.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const manifest = path.join(dir, "package.json");
      if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: string }).name === name) return dir;
    }
  } catch {
    // not installed
  }
  return undefined;
}

/**
 * The Deno binary that `npm install` brought: the `deno` package lists one `@deno/<platform>`
 * package per platform as optional dependencies, and npm installs the one for this machine.
 */
export function findDenoBinary(): string | undefined {
  const denoDir = packageDir("deno");
  if (!denoDir) return undefined;
  const executable = process.platform === "win32" ? "deno.exe" : "deno";
  const platform = process.platform === "linux" ? `linux-${process.arch}-glibc` : `${process.platform}-${process.arch}`;
  const platformDir = packageDir(`@deno/${platform}`, createRequire(path.join(denoDir, "package.json")));
  for (const candidate of [platformDir && path.join(platformDir, executable), path.join(denoDir, executable)]) {
    if (!candidate) continue;
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.realpathSync(candidate);
    } catch {
      // not installed for this platform: try the next
    }
  }
  return undefined;
}

/** What `npm install` must have brought for the deno backend, and where. */
export interface DenoRuntime {
  readonly deno: string | undefined;
  /** node_modules/pyodide: Python for the deno backend. */
  readonly pyodideDir: string | undefined;
  /** node_modules/just-bash: the simulated shell of the deno backend. */
  readonly justBashDir: string | undefined;
}

export function findDenoRuntime(): DenoRuntime {
  const pyodide = packageDir("pyodide");
  const justBash = packageDir("just-bash");
  return { deno: findDenoBinary(), pyodideDir: pyodide && fs.realpathSync(pyodide), justBashDir: justBash && fs.realpathSync(justBash) };
}
