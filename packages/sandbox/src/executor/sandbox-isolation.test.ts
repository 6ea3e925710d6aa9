// What code in the bubblewrap sandbox cannot do: read or write outside its workspace and mounts,
// see other threads, see the host's environment, reach any network.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot, writeTree, needs } from "@thinktank/testing";
import { sandboxPaths } from "../sandbox-paths.js";
import type { SandboxRequest } from "../sandbox-types.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const secret = `thinktank-fake-secret-${process.pid}-${Date.now()}`;

describe("bubblewrap sandbox isolation", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let otherWorkspace: string;
  let codeApi: string;
  let run: (request: Omit<SandboxRequest, "workspaceDir" | "mounts">) => ReturnType<SandboxFixture["executor"]["run"]>;

  beforeAll(() => {
    process.env.THINKTANK_FAKE_SECRET = secret;
    fixture = sandboxFixture();
    workspace = fixture.workspace("thread-a");
    otherWorkspace = fixture.workspace("thread-b");
    fs.writeFileSync(path.join(otherWorkspace, "private.txt"), "thread b's data");
    codeApi = path.join(fixture.root, "code-api");
    writeTree(codeApi, { "servers/demo/index.ts": "export const demo = 1;\n" });
    fs.chmodSync(codeApi, 0o755);
    run = (request) => fixture.executor.run({ ...request, workspaceDir: workspace, mounts: [{ hostPath: codeApi, sandboxPath: sandboxPaths.codeApi }], timeoutMs: 60_000 });
  });

  afterAll(async () => {
    delete process.env.THINKTANK_FAKE_SECRET;
    await fixture.cleanup();
  });

  it("shows a synthetic /etc/passwd, not the host's", async () => {
    const result = await run({ language: "shell", source: "cat /etc/passwd; ls /etc" });
    expect(result.error).toBeUndefined();
    const hostPasswd = fs.readFileSync("/etc/passwd", "utf8");
    expect(result.stdout).toContain("sandbox:x:1000:1000");
    expect(result.stdout).not.toContain(hostPasswd.trim());
    expect(result.stdout).not.toContain("shadow");
    const hostOnlyUsers = hostPasswd.split("\n").map((line) => line.split(":")[0]).filter((name) => name && !["root", "nobody"].includes(name));
    for (const name of hostOnlyUsers) expect(result.stdout).not.toMatch(new RegExp(`^${name}:`, "m"));
  });

  it("cannot read files outside its workspace and mounts (JavaScript)", async () => {
    const targets = ["/etc/shadow", "/root/.bashrc", "/root/.ssh", path.join(repositoryRoot(), "package.json"), "/home", os.homedir(), path.join(otherWorkspace, "private.txt"), "/sys/kernel", "/var/log"];
    const source = `
      import fs from "node:fs";
      for (const target of ${JSON.stringify(targets)}) {
        try { fs.readFileSync(target); console.log("READ", target); }
        catch (error) { console.log(error.code === "EISDIR" ? "DIR " + target : "denied " + target + " " + error.code); }
      }
      console.log("ROOT", fs.readdirSync("/").sort().join(","));
      console.log("USERDATA", fs.readdirSync("/mnt/user-data").join(","));
      console.log("API", fs.readFileSync("/mnt/code-api/servers/demo/index.ts", "utf8").trim());`;
    const result = await run({ language: "javascript", source });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).not.toMatch(/^(READ|DIR) /m);
    for (const target of targets) expect(result.stdout).toContain(`denied ${target}`);
    expect(result.stdout).toContain("USERDATA workspace\n");
    expect(result.stdout).toContain("API export const demo = 1;");
    const root = /ROOT (.*)/.exec(result.stdout)?.[1]?.split(",") ?? [];
    expect(root.filter((entry) => !["bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "mnt", "proc", "run", "sbin", "tmp", "usr", "root"].includes(entry))).toEqual([]);
  });

  it("cannot read other threads' workspaces or the host's files (Python)", async () => {
    const source = `
import os
for target in ["/etc/shadow", ${JSON.stringify(path.join(otherWorkspace, "private.txt"))}, ${JSON.stringify(path.join(repositoryRoot(), "package.json"))}, "/root/.bashrc", "/proc/1/environ"]:
    try:
        with open(target, "rb") as handle:
            data = handle.read()
        print("READ", target, len(data), b"${secret}" in data)
    except OSError as error:
        print("denied", target, type(error).__name__)
print("WORKSPACE", sorted(os.listdir("..")))
`;
    const result = await run({ language: "python", source });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toContain(`denied ${path.join(otherWorkspace, "private.txt")}`);
    expect(result.stdout).toContain("denied /etc/shadow");
    expect(result.stdout).toContain("denied /root/.bashrc");
    expect(result.stdout).not.toContain("True"); // /proc/1 is the sandbox's own init, started with an empty environment
    expect(result.stdout).toContain("WORKSPACE ['workspace']");
  });

  it("cannot escape through symlinks planted in its workspace: they resolve inside the sandbox", async () => {
    fs.symlinkSync(path.join(repositoryRoot(), "package.json"), path.join(workspace, "repo-link"));
    fs.symlinkSync(otherWorkspace, path.join(workspace, "other-link"));
    fs.symlinkSync("/etc/passwd", path.join(workspace, "passwd-link"));
    const result = await run({ language: "shell", source: "cat repo-link 2>&1; cat other-link/private.txt 2>&1; cat passwd-link" });
    expect(result.stdout).toContain("repo-link: No such file or directory");
    expect(result.stdout).toContain("other-link/private.txt: No such file or directory");
    expect(result.stdout).not.toContain("thread b's data");
    expect(result.stdout).toContain("sandbox:x:1000:1000");
  });

  it("writes only inside its workspace: the code API, the system and /etc are read-only, /tmp is private", async () => {
    const source = `
for target in /mnt/code-api/new.ts /mnt/code-api/servers/demo/index.ts /usr/evil /etc/evil /evil /run/thinktank/evil /dev/evil; do
  if ( : > "$target" ) 2>/dev/null; then echo "WROTE $target"; else echo "denied $target"; fi
done
echo kept > "$HOME/result.txt" && echo "workspace ok"
echo scratch > /tmp/scratch-${process.pid} && echo "tmp ok"`;
    const result = await run({ language: "shell", source });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).not.toContain("WROTE");
    expect(result.stdout.match(/^denied /gm)).toHaveLength(7);
    expect(result.stdout).toContain("workspace ok");
    expect(result.stdout).toContain("tmp ok");
    expect(fs.readFileSync(path.join(workspace, "result.txt"), "utf8")).toBe("kept\n");
    expect(fs.existsSync(path.join(codeApi, "new.ts"))).toBe(false);
    expect(fs.readFileSync(path.join(codeApi, "servers/demo/index.ts"), "utf8")).toBe("export const demo = 1;\n");
    expect(fs.existsSync(`/tmp/scratch-${process.pid}`)).toBe(false);
  });

  it("never sees the host's environment: not in its env, /proc/self/environ or any /proc/*/environ", async () => {
    expect(process.env.THINKTANK_FAKE_SECRET).toBe(secret);
    const js = await run({ language: "javascript", source: `import fs from "node:fs";
      console.log(JSON.stringify(process.env));
      for (const pid of fs.readdirSync("/proc").filter((entry) => /^\\d+$/.test(entry))) {
        try { console.log(pid, fs.readFileSync("/proc/" + pid + "/environ", "utf8")); } catch (error) { console.log(pid, error.code); }
      }`, env: { VISIBLE: "yes" } });
    expect(js.error, js.stderr).toBeUndefined();
    expect(js.stdout).toContain('"VISIBLE":"yes"');
    expect(js.stdout).not.toContain(secret);
    expect(js.stdout).not.toContain("THINKTANK_FAKE_SECRET");
    const python = await run({ language: "python", source: "import os; print(dict(os.environ)); print(open('/proc/self/environ').read())" });
    expect(python.stdout).not.toContain(secret);
    const shell = await run({ language: "shell", source: "env; cat /proc/self/environ /proc/1/environ" });
    expect(shell.error, shell.stderr).toBeUndefined();
    expect(shell.stdout).not.toContain(secret);
    expect(shell.stdout).toContain("PATH=/usr/local/bin:/usr/bin:/bin");
  });

  it("is refused system calls that widen the kernel surface (seccomp), while everyday ones work", async () => {
    // ptrace(PTRACE_TRACEME), process_vm_readv on itself with no buffers and io_uring_setup(1, NULL)
    // all get past the namespaces (they succeed, succeed and fail with EFAULT unfiltered): only the
    // seccomp filter answers EPERM. getpid is the control.
    const numbers = { x64: { ptrace: 101, process_vm_readv: 310, io_uring_setup: 425, getpid: 39 }, arm64: { ptrace: 117, process_vm_readv: 270, io_uring_setup: 425, getpid: 172 } }[process.arch as "x64" | "arm64"];
    if (!numbers) throw new Error(`no syscall numbers for ${process.arch} in this test`);
    const source = `
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
print("ptrace", call(${numbers.ptrace}, 0, 0, 0, 0))
print("process_vm_readv", call(${numbers.process_vm_readv}, os.getpid(), 0, 0, 0, 0, 0))
print("io_uring_setup", call(${numbers.io_uring_setup}, 1, 0))
print("getpid", call(${numbers.getpid}))
`;
    const result = await run({ language: "python", source });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout.trim().split("\n")).toEqual(["ptrace EPERM", "process_vm_readv EPERM", "io_uring_setup EPERM", "getpid ok"]);
  });

  it("inherits no file descriptor from the host besides its standard streams", async () => {
    // A host process started with an extra descriptor without close-on-exec (as a supervisor's pipe or an
    // activation socket would be) runs the executor: that descriptor must not reach the sandbox.
    const script = path.join(fixture.root, "leak-check.mts");
    fs.writeFileSync(
      script,
      `import fs from "node:fs";
import { loadConfig } from ${JSON.stringify(path.join(repositoryRoot(), "packages/core/src/index.ts"))};
import { createSandboxExecutor } from ${JSON.stringify(path.join(repositoryRoot(), "packages/sandbox/src/index.ts"))};
const config = loadConfig({ cwd: ${JSON.stringify(fixture.root)}, env: {} });
const executor = createSandboxExecutor({ config: { ...config, sandbox: { ...config.sandbox, warm_pool_size: 0 } }, searchPath: process.env.PATH });
const host = fs.readlinkSync("/proc/self/fd/7");
const results = {};
for (const [language, source] of [["shell", "ls /proc/self/fd"], ["python", "import os; print(*sorted(os.listdir('/proc/self/fd')))"]]) {
  results[language] = (await executor.run({ language, source, workspaceDir: ${JSON.stringify(workspace)} })).stdout.trim().split(/\\s+/).sort();
}
await executor.close();
console.log(JSON.stringify({ host, results }));
`,
    );
    const leaked = fs.openSync(path.join(fixture.root, "host-only.txt"), "w");
    try {
      const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", script], { cwd: repositoryRoot(), env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe", "ignore", "ignore", "ignore", "ignore", leaked] });
      let output = "";
      let errors = "";
      child.stdout?.on("data", (chunk) => (output += chunk));
      child.stderr?.on("data", (chunk) => (errors += chunk));
      await new Promise((resolve) => child.on("close", resolve));
      const report = JSON.parse(output.trim().split("\n").at(-1) ?? "{}", (_key, value) => value) as { host: string; results: Record<string, string[]> };
      expect(report.host, errors).toContain("host-only.txt"); // the premise: the host process holds it as fd 7
      // 0-2: the stdio pipes; 3: the lister's own handle on /proc/self/fd.
      expect(report.results.shell).toEqual(["0", "1", "2", "3"]);
      expect(report.results.python).toEqual(["0", "1", "2", "3"]);
    } finally {
      fs.closeSync(leaked);
    }
  });

  describe("network", () => {
    let tcpServer: net.Server;
    let tcpPort: number;
    let tcpConnections = 0;
    let unixServer: net.Server;
    let unixPath: string;
    let abstractServer: net.Server;
    const abstractName = `\0thinktank-test-${process.pid}`;

    beforeAll(async () => {
      tcpServer = net.createServer((socket) => {
        tcpConnections++;
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => tcpServer.listen(0, "127.0.0.1", resolve));
      tcpPort = (tcpServer.address() as net.AddressInfo).port;
      unixPath = path.join(fixture.root, "host.sock");
      unixServer = net.createServer((socket) => socket.end("unix hello\n"));
      await new Promise<void>((resolve) => unixServer.listen(unixPath, resolve));
      fs.chmodSync(unixPath, 0o777);
      abstractServer = net.createServer((socket) => socket.end("abstract hello\n"));
      await new Promise<void>((resolve) => abstractServer.listen(abstractName, resolve));
    });

    afterAll(() => {
      tcpServer.close();
      unixServer.close();
      abstractServer.close();
    });

    it("reaches neither a TCP server on the host's 127.0.0.1, nor DNS, nor a host Unix socket (JavaScript)", async () => {
      // The host side works: the servers answer from here.
      await new Promise<void>((resolve, reject) => net.connect(tcpPort, "127.0.0.1").on("data", () => resolve()).on("error", reject));
      tcpConnections = 0;
      const attempt = (label: string, options: string): string =>
        `await new Promise((resolve) => { const socket = net.connect(${options}); socket.setTimeout(5000, () => { console.log("${label} timeout"); socket.destroy(); resolve(); }); socket.on("data", (data) => { console.log("${label} CONNECTED", String(data)); socket.destroy(); resolve(); }); socket.on("error", (error) => { console.log("${label} blocked", error.code); resolve(); }); });`;
      const external = Object.values(os.networkInterfaces()).flat().find((address) => address && address.family === "IPv4" && !address.internal)?.address ?? "10.0.0.1";
      const source = `import net from "node:net"; import dns from "node:dns/promises";
        ${attempt("tcp", `{ port: ${tcpPort}, host: "127.0.0.1" }`)}
        ${attempt("external", `{ port: ${tcpPort}, host: ${JSON.stringify(external)} }`)}
        ${attempt("public", `{ port: 443, host: "1.1.1.1" }`)}
        ${attempt("unix", `{ path: ${JSON.stringify(unixPath)} }`)}
        ${attempt("abstract", `{ path: ${JSON.stringify(abstractName)} }`)}
        await dns.lookup("example.com").then((found) => console.log("dns RESOLVED", found.address), (error) => console.log("dns blocked", error.code));`;
      const result = await run({ language: "javascript", source });
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.stdout).not.toContain("CONNECTED");
      expect(result.stdout).not.toContain("RESOLVED");
      for (const label of ["tcp", "external", "public", "unix", "abstract", "dns"]) expect(result.stdout).toMatch(new RegExp(`^${label} (blocked|timeout)`, "m"));
      expect(tcpConnections).toBe(0);
    });

    it("reaches no network from Python or the shell either", async () => {
      const python = await run({
        language: "python",
        source: `import socket
for family, address in [(socket.AF_INET, ("127.0.0.1", ${tcpPort})), (socket.AF_UNIX, ${JSON.stringify(unixPath)}), (socket.AF_INET, ("1.1.1.1", 53))]:
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(address)
        print("CONNECTED", address)
    except OSError as error:
        print("blocked", type(error).__name__)
try:
    socket.getaddrinfo("example.com", 80)
    print("RESOLVED")
except OSError as error:
    print("dns blocked")`,
      });
      expect(python.error, python.stderr).toBeUndefined();
      expect(python.stdout).not.toMatch(/CONNECTED|RESOLVED/);
      expect(python.stdout.match(/blocked/g)).toHaveLength(4);
      const shell = await run({ language: "shell", source: `ip link 2>/dev/null || cat /proc/net/dev; (exec 3<>/dev/tcp/127.0.0.1/${tcpPort}) 2>/dev/null && echo CONNECTED || echo blocked` });
      expect(shell.stdout).not.toContain("CONNECTED");
      expect(shell.stdout).not.toMatch(/eth0|ens\d|enp\d/);
      expect(tcpConnections).toBe(0);
    });
  });
});
