/**
 * The programs a deno-backend worker starts with (ES modules run by `deno run`, written once into
 * the executor's runtime folder). Deno cannot open an inherited descriptor without --allow-all, so
 * the job travels on stdin: the bootstrap writes the ready mark "R" as the first byte of stdout,
 * reads its job's length in bytes (a decimal line), then exactly that much, the job `{ env, source }`
 * or `{ env, entry }`; what follows on stdin is the program's. JavaScript reads it from descriptor 0
 * itself, as under Node (`fs.readFileSync(0)`, `process.stdin`); Python and the shell get it read
 * for them. Then the bootstrap runs the program once and exits. `Deno.args[0]` is a JSON object of the worker's fixed settings.
 * Everything a bootstrap does is bounded by the same permission flags as the program it runs.
 */
import { proxiedFetchModules, proxiedFetchSource } from "../network/proxied-fetch.js";
import type { SandboxLanguage } from "../sandbox-types.js";

/**
 * Reads the job and installs its environment (the process has no env permission: plain objects
 * stand in); with `makeStdin`, reads the program's stdin too and installs `process.stdin` over it.
 * Without, descriptor 0 is left to the program, unread past the job.
 */
const prelude = `
import process from "node:process";
const settings = JSON.parse(Deno.args[0]);
// fetch through the run's egress proxy (HTTPS_PROXY / HTTP_PROXY in the job's env): Deno's own would need the targets in --allow-net.
${proxiedFetchSource}
globalThis.fetch = thinktankProxiedFetch(() => process.env, globalThis.fetch.bind(globalThis), ${proxiedFetchModules});
function readJob() {
  let header = "";
  const one = new Uint8Array(1);
  for (;;) {
    if (Deno.stdin.readSync(one) === null) throw new Error("the job ended early");
    if (one[0] === 10) break;
    header += String.fromCharCode(one[0]);
  }
  const bytes = new Uint8Array(Number(header));
  for (let offset = 0; offset < bytes.length; ) {
    const read = Deno.stdin.readSync(bytes.subarray(offset));
    if (read === null) throw new Error("the job ended early");
    offset += read;
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}
async function readRest() {
  const chunks = [];
  let size = 0;
  for await (const chunk of Deno.stdin.readable) { chunks.push(chunk); size += chunk.length; }
  const input = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) { input.set(chunk, offset); offset += chunk.length; }
  return input;
}
async function takeJob(makeStdin) {
  Deno.stdout.writeSync(new Uint8Array([82]));
  const job = readJob();
  const stdin = makeStdin ? await readRest() : undefined;
  const env = { ...job.env };
  const envApi = {
    get: (name) => env[name],
    set: (name, value) => { env[name] = String(value); },
    has: (name) => Object.hasOwn(env, name),
    delete: (name) => { delete env[name]; },
    toObject: () => ({ ...env }),
  };
  Object.defineProperty(Deno, "env", { value: envApi, configurable: true, writable: true, enumerable: true });
  Object.defineProperty(process, "env", { value: env, configurable: true, writable: true, enumerable: true });
  if (!makeStdin) return { job };
  let stdinStream;
  Object.defineProperty(process, "stdin", {
    configurable: true,
    enumerable: true,
    get() {
      stdinStream ??= makeStdin(stdin);
      return stdinStream;
    },
  });
  return { job, stdin };
}
`;

/**
 * JavaScript: the bundled ES module is written to the worker's program file and imported; a script
 * file (`entry`, its host path) runs as Node would run it: ESM for .mjs, a package.json "type":
 * "module", or (no type) source that only parses as a module; CommonJS otherwise, through require.
 */
const javascriptBootstrap = `${prelude}
import { createRequire } from "node:module";
function packageType(file) {
  for (let folder = file.slice(0, file.lastIndexOf("/")); folder !== ""; folder = folder.slice(0, folder.lastIndexOf("/"))) {
    let text;
    try {
      text = Deno.readTextFileSync(folder + "/package.json");
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      return undefined;
    }
    try {
      const type = JSON.parse(text).type;
      return type === "module" || type === "commonjs" ? type : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
function isModule(file) {
  if (/\\.m[jt]s$/.test(file)) return true;
  if (/\\.c[jt]s$/.test(file)) return false;
  const type = packageType(file);
  if (type) return type === "module";
  const source = Deno.readTextFileSync(file).replace(/^#!.*/, "");
  try {
    new Function("exports", "require", "module", "__filename", "__dirname", source);
    return false;
  } catch (error) {
    return error instanceof SyntaxError;
  }
}
const { job } = await takeJob();
Deno.chdir(settings.workspace);
try {
  if (job.entry !== undefined) {
    process.argv.splice(1, process.argv.length - 1, job.entry);
    if (isModule(job.entry)) await import(new URL("file://" + job.entry).href);
    else createRequire(job.entry)(job.entry);
  } else {
    Deno.writeTextFileSync(settings.program, job.source);
    await import(new URL("file://" + settings.program).href);
  }
} catch (error) {
  console.error(error);
  Deno.exitCode = 1;
}
`;

/**
 * Python in Pyodide: loaded (and the folders mounted at their sandbox paths) before the ready mark,
 * so a warm worker only runs the program. Standard library only. The bridge wrappers have no
 * sockets here: \`_thinktank_host.post_bridge\` carries their request over the worker's bridge socket.
 */
const pythonBootstrap = `${prelude}
import http from "node:http";
import nodeFs from "node:fs";
// Pyodide's NODEFS turns a host error into an errno by its \`code\`; Deno's permission errors have none,
// and Pyodide would die of one ("fatal error") where Python should get PermissionError: say EACCES.
for (const [name, original] of Object.entries(nodeFs)) {
  if (typeof original !== "function" || !name.endsWith("Sync")) continue;
  nodeFs[name] = function (...args) {
    try {
      return original.apply(this, args);
    } catch (error) {
      if (error && error.code === undefined && (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)) error.code = "EACCES";
      throw error;
    }
  };
}
// Wasm memory is outside V8's heap: cap what Pyodide's memory may grow to at the program's limit.
const NativeMemory = WebAssembly.Memory;
const maxPages = Math.floor(settings.memoryMb * 1024 * 1024 / 65536);
WebAssembly.Memory = function Memory(descriptor) {
  const limited = { ...descriptor, maximum: Math.max(descriptor.initial ?? 0, Math.min(descriptor.maximum ?? maxPages, maxPages)) };
  return new NativeMemory(limited);
};
WebAssembly.Memory.prototype = NativeMemory.prototype;
const { loadPyodide } = await import(new URL("file://" + settings.pyodideDir + "/pyodide.mjs").href);
const write = (fd) => ({ write: (bytes) => { let done = 0; while (done < bytes.length) done += (fd === 1 ? Deno.stdout : Deno.stderr).writeSync(bytes.subarray(done)); return bytes.length; } });
const pyodide = await loadPyodide({ indexURL: settings.pyodideDir + "/", stdout: undefined, stderr: undefined, env: { HOME: settings.workspacePath } });
WebAssembly.Memory = NativeMemory;
pyodide.setStdout(write(1));
pyodide.setStderr(write(2));
for (const mount of settings.mounts) pyodide.mountNodeFS(mount.sandboxPath, mount.hostPath);
pyodide.registerJsModule("_thinktank_host", {
  post_bridge: (socketPath, token, body) => new Promise((resolve, reject) => {
    const request = http.request({ socketPath, path: "/call", method: "POST", headers: { "content-type": "application/json", "content-length": new TextEncoder().encode(body).length, authorization: "Bearer " + token } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve([response.statusCode ?? 0, text]));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  }),
});
const driver = pyodide.runPython(\`
import os, sys, traceback, types
def _thinktank_run(env, source, program_path, workspace):
    os.environ.clear()
    os.environ.update(env)
    os.chdir(workspace)
    extra = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if source is None:
        # A script file, run as python3 file runs it: its folder first on sys.path.
        with open(program_path, "rb") as handle:
            source = handle.read()
        sys.path[0:0] = [os.path.dirname(program_path), *extra]
    else:
        sys.path[0:0] = [workspace, *extra]
    sys.argv = [program_path]
    module = types.ModuleType("__main__")
    module.__file__ = program_path
    sys.modules["__main__"] = module
    try:
        exec(compile(source, program_path, "exec"), module.__dict__)
        return 0
    except SystemExit as error:
        if error.code is None:
            return 0
        if isinstance(error.code, int):
            return error.code
        print(error.code, file=sys.stderr)
        return 1
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
_thinktank_run
\`);
const { job, stdin } = await takeJob(() => undefined);
if (job.entry === undefined) pyodide.FS.writeFile("/tmp/main.py", job.source);
pyodide.setStdin({ stdin: () => stdin, isatty: false });
// (undefined arrives as None; null would be pyodide's jsnull)
const code = await driver.callPromising(pyodide.toPy(job.env), job.entry === undefined ? job.source : undefined, job.entry ?? "/tmp/main.py", settings.workspacePath);
Deno.exit(code);
`;

/**
 * The shell: just-bash, a bash interpreter written in JavaScript, over the workspace and the mounts
 * (read-only unless writable). No host program ever runs: there is no python3, no process. Deno's
 * permissions remain the boundary, so just-bash's own in-process defences are turned off.
 */
const shellBootstrap = `${prelude}
const { Bash, MountableFs, InMemoryFs, OverlayFs, ReadWriteFs } = await import(new URL("file://" + settings.justBash).href);
const fs = new MountableFs({ base: new InMemoryFs() });
for (const mount of settings.mounts) {
  fs.mount(mount.sandboxPath, mount.writable ? new ReadWriteFs({ root: mount.hostPath }) : new OverlayFs({ root: mount.hostPath, readOnly: true, mountPoint: "/" }));
}
const { job, stdin } = await takeJob(() => undefined);
// curl and wget when the run may use the network: through the proxied fetch, which the egress proxy checks.
const proxied = job.env.https_proxy || job.env.HTTPS_PROXY || job.env.http_proxy || job.env.HTTP_PROXY;
const proxiedCurl = async (url, options = {}) => {
  const response = await fetch(url, { method: options.method, headers: options.headers, body: options.body, redirect: options.followRedirects === false ? "manual" : "follow", signal: options.signal });
  return { status: response.status, statusText: response.statusText, headers: Object.fromEntries(response.headers), body: new Uint8Array(await response.arrayBuffer()), url: response.url };
};
const bash = new Bash({ fs, cwd: settings.workspacePath, env: job.env, defenseInDepth: false, ...(proxied ? { fetch: proxiedCurl } : {}) });
const encoder = new TextEncoder();
const put = (stream, text) => { const bytes = encoder.encode(text); let done = 0; while (done < bytes.length) done += stream.writeSync(bytes.subarray(done)); };
try {
  const result = await bash.exec(job.source, { stdin: new TextDecoder().decode(stdin) });
  put(Deno.stdout, result.stdout);
  put(Deno.stderr, result.stderr);
  Deno.exit(result.exitCode);
} catch (error) {
  put(Deno.stderr, "bash: " + (error?.message ?? String(error)) + "\\n");
  Deno.exit(1);
}
`;

export function denoBootstrap(language: SandboxLanguage): string {
  switch (language) {
    case "javascript":
      return javascriptBootstrap;
    case "python":
      return pythonBootstrap;
    case "shell":
      return shellBootstrap;
  }
}
