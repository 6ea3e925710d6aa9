/**
 * The programs a worker starts with. Each one tells the host it is ready by writing "R" on fd 3,
 * reads its job from fd 3 until end of file, closes fd 3 (the program never talks to the host
 * through it), installs the job's environment and runs the job's program in a fresh process.
 * Workers are single-use: one job, then the process exits.
 */
import { proxiedFetchModules, proxiedFetchSource } from "../network/proxied-fetch.js";
import type { SandboxLanguage } from "../sandbox-types.js";

/**
 * Node: the job is JSON `{ env, source }`, the program (an ES module) written to `argv[1]` and
 * imported, or `{ env, entry }`, a script file run as `node file` runs it (Node's own entry point:
 * CommonJS or ESM by extension, package.json "type" and syntax). The bootstrap itself is CommonJS:
 * `--input-type=module` would make Node refuse an ESM entry point.
 */
const nodeBootstrap = `
const fs = require("node:fs");
const Module = require("node:module");
const net = require("node:net");
const { pathToFileURL } = require("node:url");
// -e puts its own module, exports, require, __filename and __dirname on globalThis: a program never sees them.
for (const name of ["module", "exports", "require", "__filename", "__dirname"]) delete globalThis[name];
const programPath = process.argv[1];
const nativeFetch = globalThis.fetch;
${proxiedFetchSource}
const channel = new net.Socket({ fd: 3, readable: true, writable: true });
const chunks = [];
channel.on("data", (chunk) => chunks.push(chunk));
channel.on("end", () => {
  channel.destroy();
  const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, job.env);
  // A run that may use the network: fetch through its egress proxy (HTTPS_PROXY / HTTP_PROXY), which Node 20's own ignores.
  if (job.env.https_proxy || job.env.HTTPS_PROXY || job.env.http_proxy || job.env.HTTP_PROXY) globalThis.fetch = thinktankProxiedFetch(() => process.env, nativeFetch, ${proxiedFetchModules});
  if (job.entry !== undefined) {
    process.argv.splice(1, process.argv.length - 1, job.entry);
    Module.runMain(job.entry);
    return;
  }
  fs.writeFileSync(programPath, job.source);
  process.argv.splice(1, process.argv.length - 1, programPath);
  import(pathToFileURL(programPath).href).catch((error) => {
    process.exitCode = 1;
    console.error(error);
  });
});
channel.write("R");
`;

/**
 * Python: the job is JSON `{ env, source }`, the program run as a fresh __main__ from `sys.argv[1]`, or
 * `{ env, entry }`, a script file run as `python3 file` runs it (its folder first on sys.path).
 */
const pythonBootstrap = `
import json, os, sys, types
def _thinktank_main():
    os.write(3, b"R")
    chunks = []
    while True:
        chunk = os.read(3, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(3)
    job = json.loads(b"".join(chunks))
    os.environ.clear()
    os.environ.update(job["env"])
    extra = [entry for entry in job["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
    if "entry" in job:
        # Like python3 file: the file's folder first, then PYTHONPATH.
        program_path = job["entry"]
        sys.path[0:0] = [os.path.dirname(program_path), *extra]
        with open(program_path, "rb") as handle:
            source = handle.read()
    else:
        # Like a script run from the workspace: the workspace first, then PYTHONPATH.
        sys.path[0:0] = [os.getcwd(), *extra]
        program_path = sys.argv[1]
        source = job["source"]
        with open(program_path, "w", encoding="utf-8") as handle:
            handle.write(source)
    sys.argv = [program_path]
    module = types.ModuleType("__main__")
    module.__file__ = program_path
    sys.modules["__main__"] = module
    code = compile(source, program_path, "exec")
    try:
        exec(code, module.__dict__)
    except SystemExit:
        raise
    except BaseException as error:
        import traceback
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        sys.exit(1)
_thinktank_main()
`;

/** Shell: the job is a script from \`shellJob\` that execs the command with exactly the job's environment. */
const shellBootstrap = `printf R >&3; job=$(cat <&3); exec 3<&-; eval "$job"`;

/** The interpreter arguments that run a worker's bootstrap (after the interpreter's own path); the program is written to `programBase` + .mjs / .py. */
export function bootstrapArguments(language: SandboxLanguage, programBase: string, nodeHeapMb: number): string[] {
  switch (language) {
    case "javascript":
      return [`--max-old-space-size=${nodeHeapMb}`, "-e", nodeBootstrap, `${programBase}.mjs`];
    case "python":
      // -I: the bootstrap imports nothing from the workspace (a planted json.py must not see the next job); -B: no .pyc writes.
      return ["-I", "-B", "-c", pythonBootstrap, `${programBase}.py`];
    case "shell":
      return ["-c", shellBootstrap, "sh"];
  }
}

/** What a job runs: program text, or a script file at the path the worker's program opens. */
export type JobProgram = { readonly source: string } | { readonly entry: string };

/**
 * What is written to a worker's job channel to start its program; JSON for every language when there
 * is no `envCommand` (Deno's bootstraps). A shell script file runs as `bash file`.
 */
export function encodeJob(language: SandboxLanguage, program: JobProgram, env: Readonly<Record<string, string>>, envCommand: string | undefined): string {
  if (language !== "shell" || envCommand === undefined) return JSON.stringify({ env, ...program });
  const assignments = Object.entries(env).map(([name, value]) => quote(`${name}=${value}`));
  const command = "entry" in program ? `bash ${quote(program.entry)}` : `/bin/sh -c ${quote(program.source)} sh`;
  return `exec ${quote(envCommand)} -i ${assignments.join(" ")} ${command}`;
}

/** Single-quotes a word for sh. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
