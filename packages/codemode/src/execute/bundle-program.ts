import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { isInsideFolder } from "@thinktank/core";
import type { Message, Plugin } from "esbuild";

export interface BundleProgramOptions {
  /** The program's source text. */
  readonly code: string;
  readonly language: "typescript" | "javascript";
  /** The code API on the host (config.code_execution.code_api_dir). */
  readonly codeApiDir: string;
  /** Where the sandbox mounts it; imports of this path resolve to `codeApiDir`. @default "/mnt/code-api" */
  readonly mountPath?: string;
  /**
   * The program's user's own code API (their own servers' wrappers), on the host and where the
   * sandbox mounts it: imports of that path, and `servers/<dir>` of their servers, resolve there.
   * Without it, no import of it resolves. @default none
   */
  readonly own?: { readonly dir: string; readonly mountPath: string };
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
  const codeApiRoot = rootOf(options.codeApiDir);
  const own = options.own ? { root: rootOf(options.own.dir), mountPath: options.own.mountPath.replace(/\/+$/, "") } : undefined;
  // esbuild loads with the first program, not with every process that imports code mode.
  const { build } = await import("esbuild");
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
      plugins: [confineImports(codeApiRoot, mountPath, own)],
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

function rootOf(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function confineImports(codeApiRoot: string, mountPath: string, own: { readonly root: string; readonly mountPath: string } | undefined): Plugin {
  const allowed = `node built-ins, ${mountPath}/...${own ? `, ${own.mountPath}/...` : ""} and servers/<dir>`;
  const roots = own ? [codeApiRoot, own.root] : [codeApiRoot];
  const inside = (file: string): boolean => roots.some((root) => isInsideFolder(root, file));
  return {
    name: "thinktank-confine-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || (args.pluginData as Record<string, unknown> | undefined)?.[inner] === true) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const fromCodeApi = inside(args.importer);
        const normalized = path.posix.normalize(args.path);
        let target: string | undefined;
        if (normalized === mountPath || normalized.startsWith(`${mountPath}/`)) target = codeApiRoot + normalized.slice(mountPath.length);
        else if (own && (normalized === own.mountPath || normalized.startsWith(`${own.mountPath}/`))) target = own.root + normalized.slice(own.mountPath.length);
        else if (/^servers\/[^./][^/]*(\/[^/]+)?$/.test(args.path)) {
          // A user's own servers have folder names the shared code API does not use.
          const folder = args.path.split("/").slice(0, 2).join("/");
          target = own && !fs.existsSync(path.join(codeApiRoot, folder)) && fs.existsSync(path.join(own.root, folder)) ? path.join(own.root, args.path) : path.join(codeApiRoot, args.path);
        }
        else if (fromCodeApi && (args.path.startsWith("./") || args.path.startsWith("../"))) target = path.resolve(args.resolveDir, args.path);
        if (target === undefined) {
          return { errors: [{ text: `cannot import "${args.path}": a program may import only ${allowed}` }] };
        }
        const resolved = await build.resolve(target, { kind: args.kind, resolveDir: fromCodeApi ? args.resolveDir : codeApiRoot, pluginData: { [inner]: true } });
        if (resolved.errors.length > 0) {
          return { errors: [{ text: `cannot import "${args.path}": no such module in the code API (search_tools with detail "full" gives each tool's import path)` }] };
        }
        if (!inside(realPath(resolved.path))) return { errors: [{ text: `cannot import "${args.path}": it leads outside the code API` }] };
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
