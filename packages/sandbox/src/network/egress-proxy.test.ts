import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { connectThroughProxy, echoThrough, requestThroughProxy, startEchoServer, startTargetServer } from "../test-support/egress-fixture.js";
import { EgressProxy } from "./egress-proxy.js";
import type { EgressSession } from "./egress-session.js";
import type { EgressConnection, EgressPolicy, EgressProxyOptions } from "./egress-types.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A proxy with one session, reached on a loopback port (as a worker's entrance would hand it connections). */
async function proxyWith(policy: EgressPolicy, options: EgressProxyOptions = {}): Promise<{ port: number; session: EgressSession; logged: EgressConnection[] }> {
  const logged: EgressConnection[] = [];
  const proxy = new EgressProxy({ ...options, onConnection: (connection) => logged.push(connection) });
  const session = proxy.session(policy);
  const entrance = net.createServer((socket) => session.accept(socket));
  await new Promise<void>((resolve) => entrance.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => entrance.close(resolve)), () => session.end(), () => proxy.close());
  return { port: (entrance.address() as net.AddressInfo).port, session, logged };
}

/** Names the tests use, mapped to loopback addresses (the system resolver is never asked). */
const names = (map: Record<string, readonly string[]>, calls: string[] = []): EgressProxyOptions["resolve"] => async (hostname) => {
  calls.push(hostname);
  const found = map[hostname];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return found;
};

describe("egress proxy: plain HTTP", () => {
  it("relays a request to a declared host, connecting to the address it resolved; keep-alive requests to other hosts are each checked", async () => {
    const target = await startTargetServer("api");
    cleanups.push(() => target.close());
    const { port, session, logged } = await proxyWith({ allow: [`api.test:${target.port}`], label: "unit" }, { resolve: names({ "api.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }), allowedPrivate: ["127.0.0.1"] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());

    const first = await requestThroughProxy(port, `http://api.test:${target.port}/one?x=1`, { agent });
    expect(first).toMatchObject({ status: 200, body: "api GET /one?x=1" });
    const refused = await requestThroughProxy(port, `http://other.test:${target.port}/two`, { agent });
    expect(refused.status).toBe(403);
    expect(refused.body).toBe(`other.test:${target.port} refused: it is not in this run's network allowlist (allowed: api.test:${target.port})\n`);
    expect(refused.headers["proxy-status"]).toContain("error=http_request_denied");
    expect(refused.reused).toBe(true);
    const third = await requestThroughProxy(port, `http://api.test:${target.port}/three`, { agent, method: "POST", body: "hello" });
    expect(third).toMatchObject({ status: 200, body: "api POST /three hello", reused: true });

    expect(target.requests.map((request) => request.host)).toEqual([`api.test:${target.port}`, `api.test:${target.port}`]);
    const records = session.end();
    expect(records.map((record) => [record.host, record.allowed, record.status])).toEqual([
      ["api.test", true, 200],
      ["other.test", false, 403],
      ["api.test", true, 200],
    ]);
    expect(records[0]).toMatchObject({ kind: "http", port: target.port, address: "127.0.0.1", reason: `allowed by api.test:${target.port}`, label: "unit", bytesReceived: "api GET /one?x=1".length });
    expect(records[2]).toMatchObject({ bytesSent: 5 });
    expect(logged).toEqual(records);
  });

  it("refuses a declared host that is private (not in allowed_private), and a name that resolves to a private address, without connecting", async () => {
    const target = await startTargetServer("private");
    cleanups.push(() => target.close());
    const { port, session } = await proxyWith({ allow: [`127.0.0.1:${target.port}`, `internal.test:${target.port}`, `metadata.test`, `mapped.test:${target.port}`] }, { resolve: names({ "internal.test": ["127.0.0.1"], "metadata.test": ["169.254.169.254"], "mapped.test": ["::ffff:10.0.0.1"] }) });
    const literal = await requestThroughProxy(port, `http://127.0.0.1:${target.port}/`);
    expect(literal.status).toBe(403);
    expect(literal.body).toContain("loopback (127.0.0.1), which sandboxed programs may not reach unless sandbox.network.allowed_private lists it");
    expect(literal.headers["proxy-status"]).toContain("error=destination_ip_prohibited");
    const named = await requestThroughProxy(port, `http://internal.test:${target.port}/`);
    expect(named.body).toContain(`internal.test:${target.port} refused: internal.test resolves to loopback (127.0.0.1)`);
    const metadata = await requestThroughProxy(port, "http://metadata.test/latest/meta-data/");
    expect(metadata.body).toContain("the cloud metadata service (169.254.169.254)");
    const mapped = await requestThroughProxy(port, `http://mapped.test:${target.port}/`);
    expect(mapped.body).toContain("private (10.0.0.1) inside ::ffff:a00:1");
    expect(target.connections()).toBe(0);
    expect(session.end().map((record) => [record.allowed, record.address])).toEqual([
      [false, "127.0.0.1"],
      [false, "127.0.0.1"],
      [false, "169.254.169.254"],
      [false, "::ffff:a00:1"],
    ]);
  });

  it("refuses the whole answer when any address of a name is private", async () => {
    const { port } = await proxyWith({ allow: ["mixed.test"] }, { resolve: names({ "mixed.test": ["93.184.215.14", "10.0.0.1"] }) });
    const answer = await requestThroughProxy(port, "http://mixed.test/");
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("private (10.0.0.1)");
  });

  it("connects to the address it checked: a name that answers differently on a second lookup (DNS rebinding) never reaches the second address", async () => {
    const good = await startTargetServer("good", "127.0.0.1");
    const secret = await startTargetServer("secret", "127.0.0.2");
    cleanups.push(() => good.close(), () => secret.close());
    const calls: string[] = [];
    let lookups = 0;
    const rebinding: EgressProxyOptions["resolve"] = async (hostname) => {
      calls.push(hostname);
      return lookups++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"];
    };
    const { port } = await proxyWith({ allow: [`rebind.test:${good.port}`] }, { resolve: rebinding, allowedPrivate: [`127.0.0.1:${good.port}`] });
    const first = await requestThroughProxy(port, `http://rebind.test:${good.port}/`);
    expect(first).toMatchObject({ status: 200, body: "good GET /" });
    expect(calls).toEqual(["rebind.test"]);
    // The second request resolves again (once), is given 127.0.0.2, and is refused: not allowed_private.
    const second = await requestThroughProxy(port, `http://rebind.test:${good.port}/`);
    expect(second.status).toBe(403);
    expect(calls).toEqual(["rebind.test", "rebind.test"]);
    expect(secret.connections()).toBe(0);
  });

  it("answers 400 to what is not an absolute http:// request, and 502 when the target cannot be reached", async () => {
    const closed = await startTargetServer("closed");
    await closed.close();
    const { port, session } = await proxyWith({ allow: [`gone.test:${closed.port}`, "tls.test"] }, { resolve: names({ "gone.test": ["127.0.0.1"] }), allowedPrivate: ["127.0.0.1"] });
    const relative = await requestThroughProxy(port, "/just/a/path");
    expect(relative.status).toBe(400);
    expect(relative.body).toContain("this is a proxy: send absolute-form http:// URLs, or CONNECT host:port");
    const secure = await requestThroughProxy(port, "https://tls.test/");
    expect(secure.status).toBe(400);
    expect(secure.body).toContain("send HTTPS through CONNECT");
    const gone = await requestThroughProxy(port, `http://gone.test:${closed.port}/`);
    expect(gone.status).toBe(502);
    expect(gone.body).toContain(`gone.test:${closed.port} could not be reached: ECONNREFUSED`);
    expect(gone.headers["proxy-status"]).toContain("error=connection_refused");
    const unknown = await requestThroughProxy(port, "http://tls.test/");
    expect(unknown.status).toBe(502);
    expect(unknown.headers["proxy-status"]).toContain("error=dns_error");
    expect(session.end().map((record) => record.status)).toEqual([400, 400, 502, 502]);
  });

  it("keeps and logs the first maxRecordsPerRun connections of a run, and counts the rest (a program looping on refused requests)", async () => {
    const omitted: number[] = [];
    const { port, session, logged } = await proxyWith({ allow: [], label: "flood" }, { maxRecordsPerRun: 2, onOmitted: (_policy, count) => omitted.push(count) });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    for (let index = 0; index < 5; index++) expect((await requestThroughProxy(port, `http://a${index}.test/`, { agent })).status).toBe(403);
    expect(session.end().map((record) => record.host)).toEqual(["a0.test", "a1.test"]);
    expect(logged).toHaveLength(2);
    expect(session.omitted).toBe(3);
    expect(omitted).toEqual([3]);
  });

  it("answers 431 to an oversized request head", async () => {
    const { port, session } = await proxyWith({ allow: ["a.test"] }, { maxHeaderBytes: 2048 });
    const answer = await requestThroughProxy(port, "http://a.test/", { headers: { "x-filler": "x".repeat(4096) } });
    expect(answer.status).toBe(431);
    expect(session.end()[0]).toMatchObject({ allowed: false, status: 431 });
  });

  it("asks for the policy's credentials when it has some (407), and takes them", async () => {
    const target = await startTargetServer("auth");
    cleanups.push(() => target.close());
    const credentials = `Basic ${Buffer.from("thinktank:secret").toString("base64")}`;
    const { port } = await proxyWith({ allow: [`127.0.0.1:${target.port}`], proxyAuthorization: credentials }, { allowedPrivate: ["127.0.0.1"] });
    const missing = await requestThroughProxy(port, `http://127.0.0.1:${target.port}/`);
    expect(missing.status).toBe(407);
    expect(missing.headers["proxy-authenticate"]).toBe('Basic realm="thinktank"');
    const wrong = await connectThroughProxy(port, `127.0.0.1:${target.port}`, { "Proxy-Authorization": `Basic ${Buffer.from("thinktank:guess").toString("base64")}` });
    wrong.socket.destroy();
    expect(wrong.status).toBe(407);
    const right = await requestThroughProxy(port, `http://127.0.0.1:${target.port}/`, { headers: { "proxy-authorization": credentials } });
    expect(right).toMatchObject({ status: 200, body: "auth GET /" });
  });
});

describe("egress proxy: CONNECT", () => {
  it("tunnels to a declared host (any spelling of a listed address) and counts the bytes", async () => {
    const echo = await startEchoServer();
    cleanups.push(() => echo.close());
    const { port, session } = await proxyWith({ allow: [`127.0.0.1:${echo.port}`, `echo.test:${echo.port}`] }, { resolve: names({ "echo.test": ["127.0.0.1"] }), allowedPrivate: ["127.0.0.0/8"] });
    for (const target of [`echo.test:${echo.port}`, `0x7f.1:${echo.port}`, `2130706433:${echo.port}`]) {
      const tunnel = await connectThroughProxy(port, target);
      expect(tunnel.status).toBe(200);
      expect(await echoThrough(tunnel.socket, "ping")).toBe("ping");
      await new Promise<void>((resolve) => tunnel.socket.end(() => resolve()));
    }
    const records = session.end();
    expect(records.map((record) => [record.kind, record.host, record.address, record.allowed, record.bytesSent, record.bytesReceived])).toEqual([
      ["connect", "echo.test", "127.0.0.1", true, 4, 4],
      ["connect", "127.0.0.1", "127.0.0.1", true, 4, 4],
      ["connect", "127.0.0.1", "127.0.0.1", true, 4, 4],
    ]);
  });

  it("refuses undeclared hosts, unlisted IP addresses and malformed targets", async () => {
    const echo = await startEchoServer();
    cleanups.push(() => echo.close());
    const { port, session } = await proxyWith({ allow: [`echo.test:${echo.port}`] }, { resolve: names({ "echo.test": ["127.0.0.1"] }), allowedPrivate: ["127.0.0.1"] });
    const cases: [string, number, string][] = [
      [`other.test:${echo.port}`, 403, "it is not in this run's network allowlist"],
      [`echo.test:${echo.port + 1}`, 403, `port ${echo.port + 1} is not allowed for it`],
      [`127.0.0.1:${echo.port}`, 403, "an IP address is allowed only when listed as that address"],
      [`[::ffff:127.0.0.1]:${echo.port}`, 403, "an IP address is allowed only when listed as that address"],
      ["echo.test", 400, "CONNECT needs host:port"],
      [`a..b:${echo.port}`, 400, "is not a host name"],
    ];
    for (const [target, status, text] of cases) {
      const answer = await connectThroughProxy(port, target);
      answer.socket.destroy();
      expect([target, answer.status]).toEqual([target, status]);
      expect(answer.body).toContain(text);
    }
    expect(echo.connections()).toBe(0);
    expect(session.end().every((record) => !record.allowed)).toBe(true);
  });

  it("bounds the tunnels a run has open at once (429), and closes what is open when the session ends", async () => {
    const echo = await startEchoServer();
    cleanups.push(() => echo.close());
    const { port, session } = await proxyWith({ allow: [`127.0.0.1:${echo.port}`] }, { allowedPrivate: ["127.0.0.1"], maxConnectionsPerRun: 1 });
    const open = await connectThroughProxy(port, `127.0.0.1:${echo.port}`);
    expect(open.status).toBe(200);
    const second = await connectThroughProxy(port, `127.0.0.1:${echo.port}`);
    second.socket.destroy();
    expect(second.status).toBe(429);
    expect(await echoThrough(open.socket, "still open")).toBe("still open");
    const closed = new Promise((resolve) => open.socket.once("close", resolve));
    const records = session.end();
    await closed;
    expect(records.map((record) => [record.status, record.allowed])).toEqual([
      [429, false],
      [200, true],
    ]);
    expect(records[1]).toMatchObject({ bytesSent: 10, bytesReceived: 10 });
  });
});
