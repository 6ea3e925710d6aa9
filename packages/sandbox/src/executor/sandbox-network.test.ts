// Network only to declared hosts, on every isolating backend: a sandboxed program reaches a declared
// host through the egress proxy (plain HTTP and HTTPS through CONNECT), and nothing else: not a
// loopback listener directly, not an undeclared host, not a declared private address or a name that
// resolves to one unless allowed_private lists it. Every connection is on the result and in the log.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, missingReason, needs } from "@thinktank/testing";
import { createSandboxExecutor } from "./sandbox-executor.js";
import type { SandboxRequest, SandboxResult } from "../sandbox-types.js";
import { selfSignedCertificate, startTargetServer, type TargetServer } from "../test-support/egress-fixture.js";
import { sandboxFixture, type SandboxFixture } from "../test-support/sandbox-fixture.js";

/** Names the sandboxed programs use, all on this host's loopback (the proxy's resolver for the tests). */
const testNames: Record<string, string[]> = { "api.test": ["127.0.0.1"], "secure.test": ["127.0.0.1"], "internal.test": ["127.0.0.1"] };
const hasOpenssl = missingReason("openssl") === undefined;

for (const backend of ["bubblewrap", "deno"] as const) describe(`network through the egress proxy on the ${backend} backend`, backend === "bubblewrap" ? needs("bubblewrap") : {}, () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let api: TargetServer;
  let closed: TargetServer;
  let secure: TargetServer | undefined;
  let certDir: { dir: string; cleanup: () => void };
  const logged: { level: string; message: string; details: Record<string, unknown> }[] = [];
  const run = (request: Omit<SandboxRequest, "workspaceDir">): Promise<SandboxResult> => fixture.executor.run({ timeoutMs: 60_000, ...request, workspaceDir: workspace });

  beforeAll(async () => {
    api = await startTargetServer("api");
    closed = await startTargetServer("private");
    certDir = makeTempDir("thinktank-egress-cert-");
    fs.chmodSync(certDir.dir, 0o755);
    if (hasOpenssl) {
      const certificate = selfSignedCertificate(certDir.dir, ["secure.test"]);
      fs.chmodSync(certificate.certFile, 0o644);
      secure = await startTargetServer("secure", "127.0.0.1", certificate);
    }
    fixture = sandboxFixture({
      backend,
      warmPoolSize: 1,
      // allowed_private lets the test servers through (by port); the `closed` one stays private.
      sandbox: { network: { allow: [], allowed_private: [`127.0.0.1:${api.port}`, ...(secure ? [`127.0.0.1:${secure.port}`] : [])] } },
      executor: {
        egress: { resolve: async (name) => testNames[name] ?? [] },
        logger: {
          info: (details, message) => logged.push({ level: "info", message, details }),
          warn: (details, message) => logged.push({ level: "warn", message, details }),
        },
      },
    });
    workspace = fixture.workspace("network");
  });
  afterAll(async () => {
    await fixture.cleanup();
    await Promise.all([api.close(), closed.close(), secure?.close()]);
    certDir.cleanup();
  });

  const fetchProgram = (url: string): string => `try { const response = await fetch(${JSON.stringify(url)}); console.log(response.status, (await response.text()).trim()); } catch (error) { console.log("error", error.message); }`;

  it("reaches a declared host with plain HTTP (its name resolved by the proxy; allowed_private lets its loopback address through)", async () => {
    const result = await run({ language: "javascript", source: fetchProgram(`http://api.test:${api.port}/hello?x=1`), network: [`api.test:${api.port}`], networkLabel: "test run" });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout.trim()).toBe("200 api GET /hello?x=1");
    expect(result.network).toEqual([expect.objectContaining({ kind: "http", host: "api.test", port: api.port, address: "127.0.0.1", allowed: true, status: 200, label: "test run", reason: `allowed by api.test:${api.port}` })]);
    expect(logged.some((line) => line.level === "info" && line.message === `sandbox egress: api.test:${api.port} allowed`)).toBe(true);
  });

  it("reaches a declared host over HTTPS through CONNECT, TLS end to end", needs("openssl"), async () => {
    const server = secure as TargetServer;
    // Deno's JavaScript sees host paths; bubblewrap mounts the folder at its sandbox path.
    const certFile = backend === "deno" ? path.join(certDir.dir, "test-cert.pem") : "/mnt/certs/test-cert.pem";
    const result = await run({
      language: "javascript",
      source: fetchProgram(`https://secure.test:${server.port}/over-tls`),
      network: [`secure.test:${server.port}`],
      mounts: [{ hostPath: certDir.dir, sandboxPath: "/mnt/certs" }],
      env: { NODE_EXTRA_CA_CERTS: certFile },
    });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout.trim()).toBe("200 secure GET /over-tls");
    expect(result.network).toEqual([expect.objectContaining({ kind: "connect", host: "secure.test", allowed: true, status: 200 })]);
    expect(result.network?.[0]?.bytesReceived).toBeGreaterThan(100);
  });

  it("refuses what was not declared, a declared private address and a name that resolves to one (403 with the reason), without connecting", async () => {
    const before = closed.connections();
    const program = [
      fetchProgram(`http://api.test:${api.port + 1 === closed.port ? api.port + 2 : api.port + 1}/other-port`),
      fetchProgram(`http://elsewhere.test/`),
      fetchProgram(`http://127.0.0.1:${closed.port}/literal`),
      fetchProgram(`http://internal.test:${closed.port}/named`),
      fetchProgram(`https://elsewhere.test/`),
    ].join("\n");
    const result = await run({ language: "javascript", source: program, network: [`api.test:${api.port}`, `127.0.0.1:${closed.port}`, `internal.test:${closed.port}`] });
    expect(result.error, result.stderr).toBeUndefined();
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^403 api\.test:\d+ refused: port \d+ is not allowed for it/);
    expect(lines[1]).toMatch(/^403 elsewhere\.test:80 refused: it is not in this run's network allowlist/);
    expect(lines[2]).toContain(`403 127.0.0.1:${closed.port} refused: loopback (127.0.0.1), which sandboxed programs may not reach unless sandbox.network.allowed_private lists it`);
    expect(lines[3]).toContain(`403 internal.test:${closed.port} refused: internal.test resolves to loopback (127.0.0.1)`);
    expect(lines[4]).toContain("error fetch failed: the egress proxy answered 403 to CONNECT elsewhere.test:443: elsewhere.test:443 refused");
    expect(closed.connections()).toBe(before);
    expect(result.network?.map((connection) => [connection.host, connection.allowed, connection.status])).toEqual([
      ["api.test", false, 403],
      ["elsewhere.test", false, 403],
      ["127.0.0.1", false, 403],
      ["internal.test", false, 403],
      ["elsewhere.test", false, 403],
    ]);
    expect(logged.filter((line) => line.level === "warn" && line.message.includes("refused (403)")).length).toBeGreaterThanOrEqual(5);
  });

  it("cannot reach a loopback listener directly, even with network patterns", async () => {
    const source = `import net from "node:net";
      const outcome = await new Promise((resolve) => {
        try {
          const socket = net.connect(${api.port}, "127.0.0.1");
          socket.on("connect", () => { socket.destroy(); resolve("connected"); });
          socket.on("error", (error) => resolve("failed " + (error.code ?? error.name)));
        } catch (error) { resolve("failed " + error.name); }
      });
      console.log(outcome);`;
    const before = api.connections();
    const result = await run({ language: "javascript", source, network: [`api.test:${api.port}`, `127.0.0.1:${api.port}`] });
    expect(result.stdout.trim()).toMatch(/^failed /);
    expect(api.connections()).toBe(before);
  });

  it("has no proxy and no network without patterns", async () => {
    const result = await run({ language: "javascript", source: `console.log(process.env.HTTPS_PROXY ?? "none"); ${fetchProgram(`http://api.test:${api.port}/`)}` });
    expect(result.stdout.split("\n")[0]).toBe("none");
    expect(result.stdout).toContain("error");
    expect(result.network).toBeUndefined();
  });

  it.runIf(backend === "bubblewrap")("Python (urllib) and the shell (curl) find the proxy in the usual variables", async () => {
    const python = await run({
      language: "python",
      source: `import urllib.request, urllib.error
print(urllib.request.urlopen("http://api.test:${api.port}/py").read().decode())
try:
    urllib.request.urlopen("http://elsewhere.test/")
except urllib.error.HTTPError as error:
    print(error.code, error.read().decode().strip())`,
      network: [`api.test:${api.port}`],
    });
    expect(python.error, python.stderr).toBeUndefined();
    expect(python.stdout).toContain("api GET /py");
    expect(python.stdout).toContain("403 elsewhere.test:80 refused");
    const tls = secure ? `curl -sS --cacert /mnt/certs/test-cert.pem https://secure.test:${secure.port}/curl-tls; echo` : "echo";
    const shell = await run({
      language: "shell",
      source: `curl -sS http://api.test:${api.port}/curl; echo; ${tls}; curl -s -o /dev/null -w '%{http_code}\\n' http://elsewhere.test/`,
      network: [`api.test:${api.port}`, ...(secure ? [`secure.test:${secure.port}`] : [])],
      mounts: [{ hostPath: certDir.dir, sandboxPath: "/mnt/certs" }],
    });
    expect(shell.error, shell.stderr).toBeUndefined();
    expect(shell.stdout).toContain("api GET /curl");
    if (secure) expect(shell.stdout).toContain("secure GET /curl-tls");
    expect(shell.stdout.trim().split("\n").at(-1)).toBe("403");
  });

  it.runIf(backend === "deno")("Python in Pyodide has no sockets (urllib fails), but pyodide.http.pyfetch goes through the proxied fetch", async () => {
    const result = await run({
      language: "python",
      source: `import urllib.request
try:
    urllib.request.urlopen("http://api.test:${api.port}/urllib")
except Exception as error:
    print("urllib failed")
from pyodide.http import pyfetch
from pyodide.ffi import run_sync
response = run_sync(pyfetch("http://api.test:${api.port}/pyfetch"))
print(response.status, run_sync(response.string()))`,
      network: [`api.test:${api.port}`],
    });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout.trim().split("\n")).toEqual(["urllib failed", "200 api GET /pyfetch"]);
  });

  it.runIf(backend === "deno")("the simulated shell's curl goes through the proxy too", async () => {
    const result = await run({ language: "shell", source: `curl -s http://api.test:${api.port}/just-bash; echo; curl -s http://elsewhere.test/`, network: [`api.test:${api.port}`] });
    expect(result.stdout).toContain("api GET /just-bash");
    expect(result.stdout).toContain("elsewhere.test:80 refused");
  });

  it("a warm worker serves the next run with its own policy", async () => {
    await fixture.executor.prewarm({ language: "javascript", workspaceDir: workspace, network: ["api.test"] });
    const first = await run({ language: "javascript", source: fetchProgram(`http://api.test:${api.port}/warm`), network: [`api.test:${api.port}`] });
    expect(first.warm).toBe(true);
    expect(first.stdout.trim()).toBe("200 api GET /warm");
    await fixture.executor.prewarm({ language: "javascript", workspaceDir: workspace, network: ["api.test"] });
    const second = await run({ language: "javascript", source: fetchProgram(`http://api.test:${api.port}/warm`), network: ["other.test"] });
    expect(second.warm).toBe(true);
    expect(second.stdout.trim()).toMatch(/^403 api\.test:\d+ refused/);
  });
});

describe("the deno backend's egress listener", () => {
  let fixture: SandboxFixture;
  let api: TargetServer;
  beforeAll(async () => {
    api = await startTargetServer("api");
    fixture = sandboxFixture({ backend: "deno", sandbox: { network: { allow: [], allowed_private: [`127.0.0.1:${api.port}`] } } });
  });
  afterAll(async () => {
    await fixture.cleanup();
    await api.close();
  });

  it("serves only the worker's own program: another local process that finds its port gets 407 without the secret", async () => {
    const workspace = fixture.workspace("secret");
    // The program writes its proxy address (not the secret) to a file, then waits until the test is done with it.
    const source = `import fs from "node:fs";
      const proxy = new URL(process.env.HTTP_PROXY);
      fs.writeFileSync("address.txt", proxy.host);
      while (!fs.existsSync("done.txt")) await new Promise((resolve) => setTimeout(resolve, 20));
      console.log("finished");`;
    const running = fixture.executor.run({ language: "javascript", source, workspaceDir: workspace, network: [`127.0.0.1:${api.port}`], timeoutMs: 60_000 });
    const addressFile = path.join(workspace, "address.txt");
    // The file can be seen created before its text is written: wait for the whole address.
    const written = () => (fs.existsSync(addressFile) ? fs.readFileSync(addressFile, "utf8") : "");
    await expect.poll(() => written().includes(":"), { timeout: 30_000 }).toBe(true);
    const [host, port] = written().split(":") as [string, string];
    expect(host).toMatch(/^127\./);
    const ask = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const request = http.request({ host, port: Number(port), path: `http://127.0.0.1:${api.port}/stolen`, headers }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on("error", reject);
        request.end();
      });
    expect(await ask({})).toBe(407);
    expect(await ask({ "proxy-authorization": `Basic ${Buffer.from("thinktank:guess").toString("base64")}` })).toBe(407);
    expect(api.requests).toEqual([]);
    fs.writeFileSync(path.join(workspace, "done.txt"), "");
    const result = await running;
    expect(result.stdout.trim()).toBe("finished");
    expect(result.network?.map((connection) => connection.status)).toEqual([407, 407]);
  });
});

describe("the local backend", () => {
  it("does not enforce network patterns (no isolation), and says so once in the log", async () => {
    const warnings: string[] = [];
    const fixture = sandboxFixture({ backend: "local", executor: { logger: { info: () => undefined, warn: (_details, message) => warnings.push(message) } } });
    try {
      const workspace = fixture.workspace("local");
      for (let index = 0; index < 2; index++) {
        const result = await fixture.executor.run({ language: "shell", source: "echo ${HTTPS_PROXY:-no proxy}", workspaceDir: workspace, network: ["api.example.com"] });
        expect(result.stdout.trim()).toBe("no proxy");
        expect(result.network).toBeUndefined();
      }
      expect(warnings).toEqual([expect.stringContaining("sandbox.backend local does not isolate programs: a run's network allowlist is not enforced")]);
    } finally {
      await fixture.cleanup();
    }
  });
});

describe("sandbox.network in config", () => {
  it.each([
    [{ allow: ["127.1"], allowed_private: [] }, "sandbox.network.allow: network pattern \"127.1\": an IPv4 address must be four decimal parts"],
    [{ allow: [], allowed_private: ["10.0.0.0/33"] }, "sandbox.network.allowed_private: \"10.0.0.0/33\" is not an address or CIDR block"],
  ])("a value that does not parse stops the executor's creation (CONFIG_INVALID): %j", (network, message) => {
    const temp = makeTempDir("thinktank-egress-config-");
    const loaded = loadConfig({ cwd: temp.dir, env: {} });
    let thrown: unknown;
    try {
      void createSandboxExecutor({ config: { ...loaded, sandbox: { ...loaded.sandbox, backend: "deno", network } }, runtimeDir: path.join(temp.dir, "runtime") }).close();
    } catch (error) {
      thrown = error;
    } finally {
      temp.cleanup();
    }
    expect(thrown).toMatchObject({ code: "CONFIG_INVALID" });
    expect((thrown as Error).message).toContain(message);
  });

  it("refuses a request whose patterns do not parse (VALIDATION_FAILED), before anything starts", async () => {
    const fixture = sandboxFixture({ backend: "deno" });
    try {
      const result = await fixture.executor.run({ language: "javascript", source: "console.log(1)", workspaceDir: fixture.workspace("bad"), network: ["api.example.com", "*.*.example.com"] });
      expect(result.error).toEqual({ code: "VALIDATION_FAILED", message: expect.stringContaining('network[1]: network pattern "*.*.example.com"') });
    } finally {
      await fixture.cleanup();
    }
  });
});
