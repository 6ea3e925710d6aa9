// The egress proxy's cost per request: a request through the proxy against a direct request to the
// same local server, in the same run. On the host (the proxy alone: plain HTTP, a CONNECT tunnel,
// with and without a kept-alive connection to the proxy), and from inside a bubblewrap sandbox
// (the forwarder, the worker's socket and the proxy), against the same program run directly on the host.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { createSandboxExecutor, EgressProxy } from "@thinktank/sandbox";
import { makeTempDir, missingReason } from "@thinktank/testing";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement, Summary } from "./harness.js";

const samples = 400;
const warmup = 40;
const targetMs = 2;

/** Times `request` `samples` times after a warm-up. */
async function sample(request: () => Promise<void>): Promise<Summary> {
  for (let index = 0; index < warmup; index++) await request();
  const values: number[] = [];
  for (let index = 0; index < samples; index++) {
    const started = process.hrtime.bigint();
    await request();
    values.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return summarize(values);
}

function get(options: http.RequestOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(options, (response) => {
      response.resume();
      response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
    });
    request.on("error", reject);
    request.end();
  });
}

/** CONNECT through the proxy, one request inside the tunnel, close: what an HTTPS client without keep-alive does (minus TLS). */
function tunnelled(proxyPort: number, targetPort: number, authorization: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port: proxyPort, method: "CONNECT", path: `127.0.0.1:${targetPort}`, headers: { "proxy-authorization": authorization }, agent: false });
    request.on("connect", (answer, socket) => {
      if (answer.statusCode !== 200) return reject(new Error(`CONNECT ${answer.statusCode}`));
      get({ createConnection: () => socket, path: "/" }).then(resolve, reject);
    });
    request.on("error", reject);
    request.end();
  });
}

/** Direct: connect, one request, close. */
function direct(targetPort: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(targetPort, "127.0.0.1", () => get({ createConnection: () => socket, path: "/" }).then(resolve, reject));
    socket.on("error", reject);
  });
}

/**
 * The same loop of requests as a program, a new connection each: directly, through HTTP_PROXY (the
 * forwarder inside bubblewrap: what curl and urllib use) or to THINKTANK_EGRESS_SOCKET (what the
 * bootstraps' fetch uses). Prints the median and p95 of `count` timed requests, in ms.
 */
const loopProgram = (url: string, via: "direct" | "forwarder" | "socket", count: number): string => `import http from "node:http";
const target = new URL(${JSON.stringify(url)});
const via = ${JSON.stringify(via)};
const proxy = via === "forwarder" ? new URL(process.env.HTTP_PROXY) : undefined;
const options = via === "direct" ? { host: target.hostname, port: target.port, path: target.pathname } : via === "socket" ? { socketPath: process.env.THINKTANK_EGRESS_SOCKET, path: target.href } : { host: proxy.hostname, port: proxy.port, path: target.href };
const once = () => new Promise((resolve, reject) => {
  const request = http.request({ ...options, agent: false }, (response) => { response.resume(); response.on("end", resolve); });
  request.on("error", reject);
  request.end();
});
for (let index = 0; index < 40; index++) await once();
const values = [];
for (let index = 0; index < ${count}; index++) { const started = process.hrtime.bigint(); await once(); values.push(Number(process.hrtime.bigint() - started) / 1e6); }
values.sort((a, b) => a - b);
console.log(JSON.stringify({ median: values[Math.floor(values.length / 2)], p95: values[Math.floor(values.length * 0.95)] }));`;

function runNode(file: string): Promise<{ median: number; p95: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(output) as { median: number; p95: number }) : reject(new Error(`node exited ${code}`))));
  });
}

const measure = (name: string, summary: { median: number; p95: number; samples?: number }, baseline: { name: string; median: number }, target = false): Measurement => ({
  name,
  value: round(summary.median, 3),
  unit: "ms",
  stats: { p95: round(summary.p95, 3), "added p50": round(summary.median - baseline.median, 3), ...(summary.samples ? { samples: summary.samples } : {}) },
  baseline: { name: baseline.name, value: round(baseline.median, 3), unit: "ms" },
  ...(target ? { target: `+${targetMs} ms p50 at most`, pass: summary.median - baseline.median <= targetMs } : {}),
});

const benchmark: Benchmark = {
  title: "Egress proxy: a request through it against a direct request to the same local server",
  issue: 24,
  async run(context) {
    const server = http.createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const targetPort = (server.address() as net.AddressInfo).port;
    const proxy = new EgressProxy({ allowedPrivate: [`127.0.0.1:${targetPort}`] });
    const authorization = `Basic ${Buffer.from("thinktank:bench").toString("base64")}`;
    const session = proxy.session({ allow: [`127.0.0.1:${targetPort}`], proxyAuthorization: authorization });
    // The Deno backend's entrance: a loopback TCP listener handing connections to the run's session.
    const entrance = net.createServer((socket) => session.accept(socket));
    await new Promise<void>((resolve) => entrance.listen(0, "127.0.0.1", resolve));
    const proxyPort = (entrance.address() as net.AddressInfo).port;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const temp = makeTempDir("thinktank-bench-egress-");
    try {
      const url = `http://127.0.0.1:${targetPort}/`;
      context.log("host: direct and through the proxy, a new connection per request");
      const directFresh = await sample(() => direct(targetPort));
      const proxiedFresh = await sample(() => get({ host: "127.0.0.1", port: proxyPort, path: url, headers: { "proxy-authorization": authorization }, agent: false }));
      context.log("host: kept-alive client connections");
      const directKept = await sample(() => get({ host: "127.0.0.1", port: targetPort, path: "/", agent: keepAlive }));
      const proxiedKept = await sample(() => get({ host: "127.0.0.1", port: proxyPort, path: url, headers: { "proxy-authorization": authorization }, agent: keepAlive }));
      context.log("host: CONNECT tunnel per request");
      const tunnel = await sample(() => tunnelled(proxyPort, targetPort, authorization));
      const directBaseline = { name: "direct request, new connection", median: directFresh.median };
      const results: Measurement[] = [
        measure("plain HTTP through the proxy (absolute-form), new connection", { ...proxiedFresh }, directBaseline, true),
        measure("plain HTTP through the proxy, kept-alive connection to the proxy", { ...proxiedKept }, { name: "direct request, kept-alive connection", median: directKept.median }, true),
        measure("CONNECT tunnel + one request inside, per request", { ...tunnel }, directBaseline, true),
      ];
      session.end();

      const reason = missingReason("bubblewrap");
      if (reason) {
        context.log(`bubblewrap is missing (${reason}): the in-sandbox figures are left out`);
        return results;
      }
      context.log("bubblewrap: the same loop of requests inside a sandbox (forwarder + socket + proxy) and directly on the host");
      fs.chmodSync(temp.dir, 0o755);
      const base = loadConfig({ cwd: temp.dir, env: {} });
      const executor = createSandboxExecutor({ config: { ...base, sandbox: { ...base.sandbox, backend: "bubblewrap", warm_pool_size: 1, network: { allow: [], allowed_private: [`127.0.0.1:${targetPort}`] } } }, searchPath: process.env.PATH });
      try {
        const workspace = executor.workspaceFor("bench-egress");
        const count = 300;
        const inSandbox = async (via: "forwarder" | "socket"): Promise<{ median: number; p95: number }> => {
          const sandboxed = await executor.run({ language: "javascript", source: loopProgram(url, via, count), workspaceDir: workspace, network: [`127.0.0.1:${targetPort}`], timeoutMs: 120_000 });
          if (sandboxed.error) throw new Error(`the sandboxed loop failed: ${sandboxed.error.message} ${sandboxed.stderr}`);
          return JSON.parse(sandboxed.stdout) as { median: number; p95: number };
        };
        const socket = await inSandbox("socket");
        const forwarder = await inSandbox("forwarder");
        const file = path.join(temp.dir, "loop.mjs");
        fs.writeFileSync(file, loopProgram(url, "direct", count));
        const onHost = { name: "the same program on the host, direct", median: (await runNode(file)).median };
        results.push(
          measure("plain HTTP from a bubblewrap sandbox to the egress socket (fetch's way; timed in the program)", { ...socket, samples: count }, onHost, true),
          measure("plain HTTP from a bubblewrap sandbox through the forwarder (curl's and urllib's way; timed in the program)", { ...forwarder, samples: count }, onHost),
        );
      } finally {
        await executor.close();
      }
      return results;
    } finally {
      keepAlive.destroy();
      session.end();
      proxy.close();
      await new Promise((resolve) => entrance.close(resolve));
      await new Promise((resolve) => server.close(resolve));
      temp.cleanup();
    }
  },
};

export default benchmark;
