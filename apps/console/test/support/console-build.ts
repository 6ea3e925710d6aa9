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
 * a folder of its own and then takes dist/app's place by two renames, so a gateway that another test
 * file runs at the same time never serves a half-written folder (test files build the same sources,
 * so their outputs are the same).
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
  const old = path.join(consoleRoot, "dist", `app.old-${process.pid}`);
  if (fs.existsSync(consoleAppDir)) fs.renameSync(consoleAppDir, old);
  fs.renameSync(fresh, consoleAppDir);
  fs.rmSync(old, { recursive: true, force: true });
}
