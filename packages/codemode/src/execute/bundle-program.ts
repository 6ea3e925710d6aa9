import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { isInsideFolder } from "@thinktank/core";
import { build, type Message, type Plugin } from "esbuild";

export interface BundleProgramOptions {
  /** The program's source text. */
  readonly code: string;
  readonly language: "typescript" | "javascript";
  /** The code API on the host (config.code_execution.code_api_dir). */
  readonly codeApiDir: string;
  /** Where the sandbox mounts it; imports of this path resolve to `codeApiDir`. @default "/mnt/code-api" */
  readonly mountPath?: string;
}

export type BundleOutcome = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly message: string };

/**
 * Turns a TypeScript or JavaScript program into one ES module for the sandbox, on the host, with
 * esbuild (types are stripped, never checked). What a program may import:
 * - Node's built-in modules (`node:fs`, `fs`, ...), left as imports for the sandboxed node;
 * - the code API: `/mnt/code-api/...` (e.g. `/mnt/code-api/servers/github/index.ts`), or the
 *   short form `servers/<dir>` / `servers/<dir>/<file>`;
 * - nothing else: no npm packages, no relative or absolute paths elsewhere. The bundler runs with
 *   the host's rights, so it must never read a file outside the code API on a program's behalf.
 */
export async function bundleProgram(options: BundleProgramOptions): Promise<BundleOutcome> {
  const mountPath = (options.mountPath ?? "/mnt/code-api").replace(/\/+$/, "");
  let codeApiRoot: string;
  try {
    codeApiRoot = fs.realpathSync(options.codeApiDir);
  } catch {
    codeApiRoot = path.resolve(options.codeApiDir);
  }
  try {
    const result = await build({
      // The program "lives" in the sandbox's working folder: messages name it program.ts, and its
      // relative imports are refused (they could only mean host files).
      stdin: { contents: options.code, loader: options.language === "typescript" ? "ts" : "js", sourcefile: programFile(options.language), resolveDir: programDir },
      absWorkingDir: programDir,
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "silent",
      // No tsconfig lookup around the program: its settings must not change how the bundle is made.
      tsconfigRaw: {},
      // `require` of a built-in works in the ES module too (CommonJS habits in model-written code).
      banner: { js: 'import { createRequire as __thinktankCreateRequire } from "node:module"; globalThis.require ??= __thinktankCreateRequire(import.meta.url);' },
      plugins: [confineImports(codeApiRoot, mountPath)],
    });
    const output = result.outputFiles[0];
    return output ? { ok: true, source: output.text } : { ok: false, message: "the bundler produced no output" };
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) return { ok: false, message: errors.slice(0, 10).map(formatMessage).join("\n") };
    return { ok: false, message: `the program could not be bundled: ${(error as Error).message}` };
  }
}

const inner = "thinktankInnerResolve";
const programDir = "/mnt/user-data/workspace";

function programFile(language: "typescript" | "javascript"): string {
  return language === "typescript" ? "program.ts" : "program.js";
}

function confineImports(codeApiRoot: string, mountPath: string): Plugin {
  const allowed = "node built-ins, /mnt/code-api/... and servers/<dir>";
  return {
    name: "thinktank-confine-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || (args.pluginData as Record<string, unknown> | undefined)?.[inner] === true) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const fromCodeApi = isInsideFolder(codeApiRoot, args.importer);
        const normalized = path.posix.normalize(args.path);
        let target: string | undefined;
        if (normalized === mountPath || normalized.startsWith(`${mountPath}/`)) target = codeApiRoot + normalized.slice(mountPath.length);
        else if (/^servers\/[^./][^/]*(\/[^/]+)?$/.test(args.path)) target = path.join(codeApiRoot, args.path);
        else if (fromCodeApi && (args.path.startsWith("./") || args.path.startsWith("../"))) target = path.resolve(args.resolveDir, args.path);
        if (target === undefined) {
          return { errors: [{ text: `cannot import "${args.path}": a program may import only ${allowed}` }] };
        }
        const resolved = await build.resolve(target, { kind: args.kind, resolveDir: fromCodeApi ? args.resolveDir : codeApiRoot, pluginData: { [inner]: true } });
        if (resolved.errors.length > 0) {
          return { errors: [{ text: `cannot import "${args.path}": no such module in the code API (search_tools with detail "full" gives each tool's import path)` }] };
        }
        if (!isInsideFolder(codeApiRoot, realPath(resolved.path))) return { errors: [{ text: `cannot import "${args.path}": it leads outside the code API` }] };
        return { path: resolved.path };
      });
    },
  };
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function formatMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column + 1}: ` : "";
  const line = message.location?.lineText ? `\n    ${message.location.lineText.trim()}` : "";
  return `${where}error: ${message.text}${line}`;
}
