import { Buffer } from "node:buffer";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import tls from "node:tls";
import zlib from "node:zlib";
import { makeTempDir, needs } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { selfSignedCertificate, startTargetServer } from "../test-support/egress-fixture.js";
import { EgressProxy } from "./egress-proxy.js";
import { proxiedFetchSource } from "./proxied-fetch.js";

type Fetch = typeof fetch;
const shim = new Function(`${proxiedFetchSource}\nreturn thinktankProxiedFetch;`)() as (getEnv: () => Record<string, string | undefined>, nativeFetch: Fetch, loadModules: () => Promise<unknown>) => Fetch;
const makeFetch = (getEnv: () => Record<string, string | undefined>, nativeFetch: Fetch): Fetch => shim(getEnv, nativeFetch, async () => ({ http, tls, zlib, fs, Buffer, Readable }));

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The shim, pointed at a real egress proxy (with credentials, as on Deno) that allows `allow`. */
async function shimThrough(allow: string[], env: Record<string, string> = {}): Promise<{ fetch: Fetch; proxyUrl: string }> {
  const proxy = new EgressProxy({ allowedPrivate: ["127.0.0.1"], resolve: async (name) => (name.endsWith(".test") ? ["127.0.0.1"] : []) });
  const authorization = `Basic ${Buffer.from("thinktank:s3cret").toString("base64")}`;
  const session = proxy.session({ allow, proxyAuthorization: authorization });
  const entrance = net.createServer((socket) => session.accept(socket));
  await new Promise<void>((resolve) => entrance.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => entrance.close(resolve)), () => session.end(), () => proxy.close());
  const proxyUrl = `http://thinktank:s3cret@127.0.0.1:${(entrance.address() as net.AddressInfo).port}`;
  const variables = { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, ...env };
  return { fetch: makeFetch(() => variables, () => Promise.reject(new Error("the native fetch must not be used"))), proxyUrl };
}

describe("the sandbox's proxied fetch", () => {
  it("sends http requests through the proxy: bodies, redirects to another declared host, a refusal as the proxy's 403", async () => {
    const first = await startTargetServer("first");
    const redirecting = http.createServer((request, response) => {
      if (request.url === "/gzip") {
        response.writeHead(200, { "content-encoding": "gzip" });
        response.end(zlib.gzipSync("decoded"));
        return;
      }
      response.writeHead(request.method === "POST" ? 303 : 302, { location: `http://first.test:${first.port}/landed` });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    const port = (redirecting.address() as net.AddressInfo).port;
    cleanups.push(() => first.close(), () => new Promise((resolve) => redirecting.close(resolve)));
    const { fetch } = await shimThrough([`first.test:${first.port}`, `hop.test:${port}`]);

    const plain = await fetch(`http://first.test:${first.port}/a?b=1`, { method: "PUT", body: "payload", headers: { "x-mine": "yes" } });
    expect(await plain.text()).toBe("first PUT /a?b=1 payload");
    expect(plain.headers.get("x-target")).toBe("first");

    const redirected = await fetch(`http://hop.test:${port}/start`, { method: "POST", body: "dropped" });
    expect(await redirected.text()).toBe("first GET /landed");
    expect(redirected.url).toBe(`http://first.test:${first.port}/landed`);
    expect(redirected.redirected).toBe(true);

    const manual = await fetch(`http://hop.test:${port}/start`, { redirect: "manual" });
    expect(manual.status).toBe(302);

    expect(await (await fetch(`http://hop.test:${port}/gzip`)).text()).toBe("decoded");

    const refused = await fetch("http://elsewhere.test/");
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("elsewhere.test:80 refused: it is not in this run's network allowlist");
  });

  it("sends https through CONNECT with TLS end to end (NODE_EXTRA_CA_CERTS trusted), and a refused CONNECT is a TypeError with the reason", needs("openssl"), async () => {
    const temp = makeTempDir("thinktank-fetch-tls-");
    cleanups.push(() => temp.cleanup());
    const certificate = selfSignedCertificate(temp.dir, ["secure.test"]);
    const secure = await startTargetServer("secure", "127.0.0.1", certificate);
    cleanups.push(() => secure.close());
    const caFile = path.join(temp.dir, "ca.pem");
    fs.writeFileSync(caFile, certificate.cert);
    const { fetch } = await shimThrough([`secure.test:${secure.port}`], { NODE_EXTRA_CA_CERTS: caFile });
    const answer = await fetch(`https://secure.test:${secure.port}/over-tls`);
    expect(await answer.text()).toBe("secure GET /over-tls");

    await expect(fetch(`https://other.test:${secure.port}/`)).rejects.toThrow(`fetch failed: the egress proxy answered 403 to CONNECT other.test:${secure.port}: other.test:${secure.port} refused: it is not in this run's network allowlist`);
    const untrusted = (await shimThrough([`secure.test:${secure.port}`])).fetch;
    await expect(untrusted(`https://secure.test:${secure.port}/`)).rejects.toThrow(/fetch failed: .*(self-signed|self signed)/);
  });

  it("connects to THINKTANK_EGRESS_SOCKET when the sandbox names the proxy's socket", async () => {
    const target = await startTargetServer("via-socket");
    const temp = makeTempDir("thinktank-fetch-socket-");
    const proxy = new EgressProxy({ allowedPrivate: ["127.0.0.1"] });
    const session = proxy.session({ allow: [`127.0.0.1:${target.port}`] });
    const socketPath = path.join(temp.dir, "egress.sock");
    const entrance = net.createServer((socket) => session.accept(socket));
    await new Promise<void>((resolve) => entrance.listen(socketPath, resolve));
    cleanups.push(() => target.close(), () => temp.cleanup(), () => new Promise((resolve) => entrance.close(resolve)), () => session.end(), () => proxy.close());
    // The URL's port answers nothing: only the socket can carry the request.
    const fetch = makeFetch(() => ({ HTTP_PROXY: "http://127.0.0.1:9", THINKTANK_EGRESS_SOCKET: socketPath }), () => Promise.reject(new Error("native")));
    expect(await (await fetch(`http://127.0.0.1:${target.port}/s`)).text()).toBe("via-socket GET /s");
    expect(session.end()).toEqual([expect.objectContaining({ allowed: true, status: 200 })]);
  });

  it("uses the runtime's own fetch without a proxy variable, and for other schemes", async () => {
    const calls: string[] = [];
    const native = (async (input: string | URL | Request) => {
      calls.push(String(input));
      return new Response("native");
    }) as Fetch;
    const shim = makeFetch(() => ({}), native);
    expect(await (await shim("http://example.test/")).text()).toBe("native");
    const withProxy = makeFetch(() => ({ HTTP_PROXY: "http://127.0.0.1:9" }), native);
    expect(await (await withProxy("data:text/plain,hi")).text()).toBe("native");
    expect(calls).toEqual(["http://example.test/", "data:text/plain,hi"]);
  });
});
