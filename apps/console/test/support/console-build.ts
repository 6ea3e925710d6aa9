import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** apps/console: its sources, and the build the gateway serves (dist/app). */
export const consoleRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const consoleAppDir = path.join(consoleRoot, "dist", "app");

/** The newest modification time among the files the build reads (src/, index.html, vite.config.ts, package.json). */
function newestSourceMs(): number {
  let newest = 0;
  const visit = (file: string): void => {
    const stat = fs.statSync(file);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file)) visit(path.join(file, name));
    } else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const name of ["src", "index.html", "vite.config.ts", "package.json"]) visit(path.join(consoleRoot, name));
  return newest;
}

/** Why the console's build is stale (missing, or older than a source), or undefined when it is current. */
export function consoleBuildStaleReason(): string | undefined {
  const index = path.join(consoleAppDir, "index.html");
  if (!fs.existsSync(index)) return `${index} does not exist`;
  return fs.statSync(index).mtimeMs < newestSourceMs() ? "a source is newer than dist/app/index.html" : undefined;
}

let building: Promise<void> | undefined;

/**
 * Builds the console (vite build) when its build is stale, once per test process. The build goes to
 * a folder of its own; its hashed assets are then copied beside the ones there (new names, so a page
 * loading the old index.html still finds its files) and its index.html replaces the old one by a
 * rename, which is atomic: a gateway another test file runs at the same time never finds the build
 * missing or half-written (test files build the same sources, so their outputs agree). Old assets
 * stay until the next `npm run build`, which empties the folder.
 */
export function ensureConsoleBuilt(): Promise<void> {
  if (consoleBuildStaleReason() === undefined) return Promise.resolve();
  building ??= build().finally(() => (building = undefined));
  return building;
}

async function build(): Promise<void> {
  const fresh = path.join(consoleRoot, "dist", `app.building-${process.pid}`);
  const vite = path.join(path.dirname(fileURLToPath(import.meta.resolve("vite/package.json"))), "bin", "vite.js");
  const child = spawn(process.execPath, [vite, "build", "--outDir", fresh, "--emptyOutDir", "--logLevel", "warn"], { cwd: consoleRoot, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  if (code !== 0) {
    fs.rmSync(fresh, { recursive: true, force: true });
    throw new Error(`vite build of the console failed (exit ${code}):\n${output}`);
  }
  try {
    fs.mkdirSync(consoleAppDir, { recursive: true });
    for (const entry of fs.readdirSync(fresh, { recursive: true, withFileTypes: true })) {
      const from = path.join(entry.parentPath, entry.name);
      const to = path.join(consoleAppDir, path.relative(fresh, from));
      if (entry.isDirectory() || (entry.name === "index.html" && entry.parentPath === fresh)) continue;
      // Copied under a name of its own, then renamed: a reader never sees half a file.
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, `${to}.${process.pid}.tmp`);
      fs.renameSync(`${to}.${process.pid}.tmp`, to);
    }
    fs.renameSync(path.join(fresh, "index.html"), path.join(consoleAppDir, "index.html"));
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
  }
}
