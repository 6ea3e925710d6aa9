import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import lockfile from "proper-lockfile";
import type { CodeApiIndex, CodeApiServerEntry } from "../names/code-api-index.js";
import { buildCodeApiIndex } from "../names/code-api-index.js";
import { pythonServersPackage } from "../python/render-python-package.js";
import { runtimeFiles } from "../runtime/runtime-files.js";
import type { CodeApiManifest, CodeApiManifestServer } from "./code-api-manifest.js";
import { codegenVersion, manifestFileName, readCodeApiManifest, writeCodeApiManifest } from "./code-api-manifest.js";
import { codeApiReadme } from "./code-api-readme.js";
import type { CodeApiLanguage, CodegenServer, CodegenWarning } from "./codegen-types.js";
import { renderServer } from "./render-server.js";
import { replaceDirectory, writeIfChanged } from "./replace-directory.js";
import { validateGenerateOptions } from "./validate-generate-options.js";

export interface GenerateCodeApiOptions {
  /** Every server the code API should hold; servers generated before and absent now are removed. */
  readonly servers: readonly CodegenServer[];
  /** The code API folder (config.code_execution.code_api_dir); created when absent. */
  readonly outDir: string;
  /** @default ["typescript", "python"] */
  readonly languages?: readonly CodeApiLanguage[];
  /**
   * Regenerate servers whose tool list did not change: `true` for all, or a list of server names.
   * @default false
   */
  readonly force?: boolean | readonly string[];
  /**
   * Delete servers generated before and absent from `servers`. With `false` they stay as they are
   * (for regenerating a subset), unless a listed server now needs their folder.
   * @default true
   */
  readonly prune?: boolean;
  /**
   * Remove everything generated before (per the manifest) and start over.
   * @default false
   */
  readonly clean?: boolean;
  /**
   * Where the folder is mounted in the sandbox, as the index's wrapper paths and the README show it.
   * @default "/mnt/code-api"
   */
  readonly mountPath?: string;
  /**
   * Another code API the same programs see (the shared one, when this folder holds one user's own
   * servers): its folder and package names are left to it (CodeApiIndexOptions.alongside). @default none
   */
  readonly alongside?: Pick<CodeApiIndex, "servers">;
  /** Called once per server, in order, after it was handled. */
  readonly onProgress?: (event: { server: string; action: "generated" | "unchanged"; done: number; total: number }) => void;
}

export interface GenerateCodeApiResult {
  /** Servers whose files were (re)written. */
  readonly generated: readonly string[];
  /** Servers left untouched because their tool list did not change. */
  readonly unchanged: readonly string[];
  /** Servers generated before and absent now, whose folders were deleted. */
  readonly removed: readonly string[];
  /** Names and paths of every tool's wrappers. */
  readonly index: CodeApiIndex;
  /** Schemas typed loosely (unresolved `$ref`s and the like), per tool. */
  readonly warnings: readonly CodegenWarning[];
  /** Files written in this run. */
  readonly filesWritten: number;
  readonly durationMs: number;
}

/** What the generator writes at the top of the folder; `clean` removes exactly these. */
const generatedEntries = ["servers", "python", "runtime", "package.json", "README.md", manifestFileName, ".staging"];
const lockFileName = ".generate.lock";

/**
 * Generates the code API for a set of servers (docs/code-api.md): typed TypeScript and Python
 * wrappers per tool, an index per server, and the runtime helpers. Incremental: a server whose
 * tools did not change keeps its files (and their mtimes); each changed server's folder is
 * replaced atomically; removed servers are deleted. Concurrent runs on one folder take turns.
 */
export async function generateCodeApi(options: GenerateCodeApiOptions): Promise<GenerateCodeApiResult> {
  const started = performance.now();
  const { languages, outDir } = validateGenerateOptions(options);
  fs.mkdirSync(outDir, { recursive: true });
  const release = await lockfile.lock(outDir, {
    lockfilePath: path.join(outDir, lockFileName),
    realpath: false,
    stale: 60_000,
    retries: { retries: 100, minTimeout: 50, maxTimeout: 1_000 },
  });
  try {
    return generateLocked(options, outDir, languages, started);
  } finally {
    await release();
  }
}

function generateLocked(options: GenerateCodeApiOptions, outDir: string, languages: readonly CodeApiLanguage[], started: number): GenerateCodeApiResult {
  const previous = previousManifest(outDir, options.clean === true);
  fs.rmSync(path.join(outDir, ".staging"), { recursive: true, force: true });
  const staging = path.join(outDir, ".staging");
  const index = buildCodeApiIndex(options.servers, { ...(options.mountPath === undefined ? {} : { mountPath: options.mountPath }), ...(options.alongside ? { alongside: options.alongside } : {}) });
  const entries = new Map(index.servers.map((entry) => [entry.server, entry]));
  const forced = (server: string): boolean => options.force === true || (Array.isArray(options.force) && options.force.includes(server));

  const generated: string[] = [];
  const unchanged: string[] = [];
  const warnings: CodegenWarning[] = [];
  // No prototype: a server may be called `__proto__` or `constructor`.
  const servers: Record<string, CodeApiManifestServer> = Object.create(null) as Record<string, CodeApiManifestServer>;
  let filesWritten = 0;
  const total = options.servers.length;
  for (const [position, server] of options.servers.entries()) {
    const entry = entries.get(server.server) as CodeApiServerEntry;
    const hash = serverHash(server, entry, languages);
    const before = Object.hasOwn(previous.servers, server.server) ? previous.servers[server.server] : undefined;
    const present = (!languages.includes("typescript") || fs.existsSync(path.join(outDir, "servers", entry.dir))) && (!languages.includes("python") || fs.existsSync(path.join(outDir, "python", "servers", entry.pythonPackage)));
    servers[server.server] = {
      hash,
      dir: entry.dir,
      pythonPackage: entry.pythonPackage,
      tools: entry.tools.map((t) => ({ tool: t.tool, functionName: t.functionName, pythonFunctionName: t.pythonFunctionName })),
    };
    if (before?.hash === hash && present && !forced(server.server)) {
      unchanged.push(server.server);
      options.onProgress?.({ server: server.server, action: "unchanged", done: position + 1, total });
      continue;
    }
    const rendered = renderServer(server, entry, languages);
    warnings.push(...rendered.warnings);
    if (languages.includes("typescript")) replaceDirectory(path.join(outDir, "servers", entry.dir), rendered.typescript, staging);
    if (languages.includes("python")) replaceDirectory(path.join(outDir, "python", "servers", entry.pythonPackage), rendered.python, staging);
    filesWritten += rendered.typescript.size + rendered.python.size;
    generated.push(server.server);
    options.onProgress?.({ server: server.server, action: "generated", done: position + 1, total });
  }

  if (options.prune === false) carryOver(previous.servers, servers);
  const removed = Object.keys(previous.servers).filter((name) => !Object.hasOwn(servers, name));
  removeStaleFolders(outDir, previous, servers, languages);
  filesWritten += writeSharedFiles(outDir, languages, index.mountPath);
  fs.rmSync(staging, { recursive: true, force: true });
  const manifest: CodeApiManifest = { generator: "thinktank-codegen", version: codegenVersion, languages: [...languages], servers };
  writeCodeApiManifest(outDir, manifest);
  return { generated, unchanged, removed, index, warnings, filesWritten, durationMs: performance.now() - started };
}

/** The previous run's manifest, after checking the folder is ours and honouring `clean`. */
function previousManifest(outDir: string, clean: boolean): { servers: Readonly<Record<string, CodeApiManifestServer>> } {
  const read = readCodeApiManifest(outDir);
  if (read.state === "missing") {
    const foreign = fs.readdirSync(outDir).filter((name) => name !== lockFileName && !generatedEntries.includes(name));
    if (foreign.length > 0) {
      throw new ThinktankError(
        "CODEGEN_OUTPUT_NOT_EMPTY",
        `${outDir} holds files the code generator did not write (${foreign.slice(0, 5).join(", ")}${foreign.length > 5 ? ", ..." : ""}) and no ${manifestFileName}; choose an empty or new folder`,
        { details: { outDir, foreign: foreign.slice(0, 20) } },
      );
    }
  }
  if (clean || read.state !== "ok") {
    for (const name of generatedEntries) fs.rmSync(path.join(outDir, name), { recursive: true, force: true });
    return { servers: {} };
  }
  return read.manifest;
}

/** Keeps earlier servers absent from this run, when no server of this run took their folders. */
function carryOver(previous: Readonly<Record<string, CodeApiManifestServer>>, current: Record<string, CodeApiManifestServer>): void {
  const dirs = new Set(Object.values(current).map((s) => s.dir));
  const packages = new Set(Object.values(current).map((s) => s.pythonPackage));
  for (const [name, old] of Object.entries(previous)) {
    if (Object.hasOwn(current, name) || dirs.has(old.dir) || packages.has(old.pythonPackage)) continue;
    current[name] = old;
  }
}

/** Deletes folders of removed servers, of servers that were renamed, and of languages no longer generated. */
function removeStaleFolders(outDir: string, previous: { servers: Readonly<Record<string, CodeApiManifestServer>> }, current: Record<string, CodeApiManifestServer>, languages: readonly CodeApiLanguage[]): void {
  const usedDirs = new Set(Object.values(current).map((s) => s.dir));
  const usedPackages = new Set(Object.values(current).map((s) => s.pythonPackage));
  for (const old of Object.values(previous.servers)) {
    if (!usedDirs.has(old.dir)) fs.rmSync(path.join(outDir, "servers", old.dir), { recursive: true, force: true });
    if (!usedPackages.has(old.pythonPackage)) fs.rmSync(path.join(outDir, "python", "servers", old.pythonPackage), { recursive: true, force: true });
  }
  if (!languages.includes("typescript")) for (const name of ["servers", "runtime", "package.json"]) fs.rmSync(path.join(outDir, name), { recursive: true, force: true });
  if (!languages.includes("python")) fs.rmSync(path.join(outDir, "python"), { recursive: true, force: true });
}

/** The runtime helpers, the package.json that makes the wrappers ES modules, and the README. */
function writeSharedFiles(outDir: string, languages: readonly CodeApiLanguage[], mountPath: string): number {
  const runtime = runtimeFiles();
  const files: [string, string][] = [["README.md", codeApiReadme(languages, mountPath)]];
  if (languages.includes("typescript")) {
    files.push(["runtime/call-mcp-tool.ts", runtime.typescript], ["package.json", `${JSON.stringify({ private: true, type: "module" }, null, 2)}\n`]);
  }
  if (languages.includes("python")) files.push(["python/thinktank_bridge.py", runtime.python], ["python/servers/__init__.py", pythonServersPackage]);
  return files.filter(([relative, content]) => writeIfChanged(path.join(outDir, relative), content)).length;
}

/** Everything a server's files are made from; equal hashes mean equal files. */
function serverHash(server: CodegenServer, entry: CodeApiServerEntry, languages: readonly CodeApiLanguage[]): string {
  const tools = server.tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({ name, title, description, inputSchema, outputSchema, annotations }));
  const names = entry.tools.map((t) => [t.tool, t.functionName, t.pythonFunctionName]);
  const text = JSON.stringify({ version: codegenVersion, languages, server: server.server, dir: entry.dir, pythonPackage: entry.pythonPackage, names, tools });
  return crypto.createHash("sha256").update(text).digest("hex");
}
