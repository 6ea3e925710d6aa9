import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeFileDurably } from "@thinktank/core";
import type { ToolProblem, ToolRuntime } from "./tool-definition.js";

/** Largest script the registry stores. */
export const defaultMaxScriptBytes = 1024 * 1024;

/**
 * The scripts of registered tools, in one folder (config.tools.scripts_dir). Every version of a
 * script gets a new file name (`<tool>-<random>.<ext>`), written atomically (temp file, fsync,
 * rename, fsync of the folder) before the registry points at it, so a reader never sees half a
 * script and a failed registration leaves no stray entry.
 */
export class ScriptFiles {
  constructor(
    readonly dir: string,
    private readonly random: () => string = () => crypto.randomBytes(6).toString("hex"),
  ) {}

  pathOf(fileName: string): string {
    return path.join(this.dir, fileName);
  }

  /** Writes a new script file for `tool` and answers its file name. */
  async write(tool: string, runtime: ToolRuntime, source: Buffer, uploadedName?: string): Promise<string> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    const fileName = `${tool}-${this.random()}${scriptExtension(runtime, source.toString("utf8"), uploadedName)}`;
    await writeFileDurably(this.pathOf(fileName), source, { mode: 0o644 });
    return fileName;
  }

  /** Removes a script file; one already gone is fine. */
  async remove(fileName: string): Promise<void> {
    await fs.promises.rm(this.pathOf(fileName), { force: true });
  }
}

/**
 * The file extension a script is stored with. Node scripts get `.mjs` or `.cjs` (the upload's own,
 * else from the source: `import`/`export` statements mean a module), so the nearest package.json's
 * `type` cannot change how they load.
 */
export function scriptExtension(runtime: ToolRuntime, source: string, uploadedName?: string): string {
  if (runtime === "python") return ".py";
  if (runtime === "shell") return ".sh";
  const uploaded = uploadedName ? path.extname(uploadedName).toLowerCase() : "";
  if (uploaded === ".mjs" || uploaded === ".cjs") return uploaded;
  return /^\s*(import\s*[\w{*"']|export\s)/m.test(source) || /\bimport\.meta\b/.test(source) ? ".mjs" : ".cjs";
}

/** Problems with a script's bytes: empty, binary, not UTF-8, too large. */
export function checkScriptSource(source: Buffer, field: string, maxBytes = defaultMaxScriptBytes): ToolProblem[] {
  if (source.length > maxBytes) return [{ path: field, message: `the script is ${source.length} bytes; the limit is ${maxBytes}` }];
  if (source.toString("utf8").trim() === "") return [{ path: field, message: "the script is empty" }];
  if (source.includes(0)) return [{ path: field, message: "the script is not a text file (it holds NUL bytes)" }];
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(source);
  } catch {
    return [{ path: field, message: "the script must be UTF-8 text" }];
  }
  return [];
}
