import fs from "node:fs";
import path from "node:path";

/** just-bash's entry imports its dependencies by bare name, which Deno (with --no-npm) cannot resolve: one bundle, made once per process. */
let bundled: Promise<{ text: string } | { problem: string }> | undefined;

function bundleOnce(justBashDir: string): Promise<{ text: string } | { problem: string }> {
  bundled ??= (async () => {
    try {
      // esbuild loads here, with the first bash run on the Deno backend, not with every process that imports the sandbox.
      const { build } = await import("esbuild");
      const result = await build({
        stdin: { contents: `export { Bash, MountableFs, InMemoryFs, OverlayFs, ReadWriteFs } from ${JSON.stringify(justBashDir)};`, resolveDir: justBashDir, loader: "js" },
        bundle: true,
        write: false,
        format: "esm",
        platform: "node",
        target: "es2022",
        logLevel: "silent",
        // Native compressors, optional and unused by the simulated shell's commands here.
        external: ["node-liblzma", "@mongodb-js/zstd"],
      });
      const text = result.outputFiles[0]?.text;
      return text ? { text } : { problem: "the bundler produced no output" };
    } catch (error) {
      return { problem: (error as Error).message.split("\n")[0] ?? "bundling failed" };
    }
  })();
  return bundled;
}

/** Writes the just-bash bundle into `dir` (readable by the sandbox user) and returns its path. */
export async function justBashBundle(justBashDir: string, dir: string): Promise<string | { problem: string }> {
  const outcome = await bundleOnce(justBashDir);
  if ("problem" in outcome) return outcome;
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, "just-bash.mjs");
  fs.writeFileSync(file, outcome.text, { mode: 0o644 });
  return file;
}
