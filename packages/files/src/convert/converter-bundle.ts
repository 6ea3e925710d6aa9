import { isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "esbuild";

export type BundleOutcome = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly problem: string };

/** The worker's entry beside this file: `.ts` when the sources run (tests, development), `.js` once built. */
function workerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), "worker", `convert-main${path.extname(here)}`);
}

/**
 * Node's built-ins imported by their bare names (`crypto`, as CommonJS packages do) become `node:`
 * imports: Deno resolves only those. They stay imports; everything else is in the bundle.
 */
const builtinsWithPrefix: Plugin = {
  name: "node-builtins",
  setup(build) {
    build.onResolve({ filter: /^[a-z_/]+$/ }, (args) => (isBuiltin(args.path) ? { path: `node:${args.path}`, external: true } : undefined));
  },
};

/**
 * The conversion worker (src/convert/worker) and its parsers (pdfjs, mammoth, exceljs, csv-parse,
 * turndown, fast-xml-parser, adm-zip) as one self-contained ES module, which the sandbox runs as a
 * program on either backend (node under bubblewrap, Deno). Made with esbuild in about two seconds;
 * the converter makes it once, on its first document.
 */
export async function bundleConverter(): Promise<BundleOutcome> {
  try {
    // esbuild loads here, with the first document, not with every process that imports this package.
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: [workerEntry()],
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: "node20",
      minify: true,
      legalComments: "none",
      logLevel: "silent",
      // CommonJS packages inside an ES module call require() for Node's built-ins.
      banner: { js: 'import { createRequire as __thinktankCreateRequire } from "node:module"; globalThis.require ??= __thinktankCreateRequire(import.meta.url);' },
      // pdfjs looks for an optional canvas package it never needs for text; leave it unresolved.
      external: ["@napi-rs/canvas"],
      plugins: [builtinsWithPrefix],
    });
    const output = result.outputFiles[0];
    return output ? { ok: true, source: output.text } : { ok: false, problem: "the bundler produced no output" };
  } catch (error) {
    return { ok: false, problem: `the conversion worker could not be bundled: ${(error as Error).message.split("\n")[0]}` };
  }
}
