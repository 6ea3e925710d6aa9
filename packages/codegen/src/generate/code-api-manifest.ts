import fs from "node:fs";
import path from "node:path";
import type { CodeApiLanguage } from "./codegen-types.js";

/** The file in the code API folder that records what was generated, for incremental runs. */
export const manifestFileName = "manifest.json";

/** Bumped whenever the generated output changes shape, so every server is regenerated once. */
export const codegenVersion = 1;

export interface CodeApiManifestServer {
  /** Hash of everything the server's files are made from (its tools, their names, the generator version). */
  readonly hash: string;
  readonly dir: string;
  readonly pythonPackage: string;
  readonly tools: readonly { readonly tool: string; readonly functionName: string; readonly pythonFunctionName: string }[];
}

export interface CodeApiManifest {
  readonly generator: "thinktank-codegen";
  readonly version: number;
  readonly languages: readonly CodeApiLanguage[];
  readonly servers: Readonly<Record<string, CodeApiManifestServer>>;
}

/**
 * Reads the manifest of a code API folder: `missing` when there is none, `corrupt` when it
 * cannot be trusted (the caller then rebuilds the folder from scratch).
 */
export function readCodeApiManifest(outDir: string): { state: "ok"; manifest: CodeApiManifest } | { state: "missing" } | { state: "corrupt"; reason: string } {
  const file = path.join(outDir, manifestFileName);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    return { state: "corrupt", reason: (error as Error).message };
  }
  try {
    const data = JSON.parse(text) as Partial<CodeApiManifest>;
    if (data.generator !== "thinktank-codegen" || typeof data.version !== "number" || !data.servers || typeof data.servers !== "object" || !Array.isArray(data.languages)) {
      return { state: "corrupt", reason: "not a thinktank code API manifest" };
    }
    for (const entry of Object.values(data.servers)) {
      if (!entry || typeof entry.hash !== "string" || !isSafeName(entry.dir) || !isSafeName(entry.pythonPackage)) return { state: "corrupt", reason: "a server entry is malformed" };
    }
    return { state: "ok", manifest: data as CodeApiManifest };
  } catch (error) {
    return { state: "corrupt", reason: (error as Error).message };
  }
}

/** Writes the manifest atomically: a temporary file in the same folder, then a rename. */
export function writeCodeApiManifest(outDir: string, manifest: CodeApiManifest): void {
  const file = path.join(outDir, manifestFileName);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(temporary, file);
}

/** Folder names the generator makes: a manifest naming anything else (`..`, `a/b`) is not trusted. */
function isSafeName(name: unknown): name is string {
  return typeof name === "string" && /^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(name);
}
