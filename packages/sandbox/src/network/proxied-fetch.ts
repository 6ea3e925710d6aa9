/**
 * The `fetch` the JavaScript bootstraps install (bubblewrap's node and every Deno worker): it sends
 * http(s) requests through the proxy named in the program's HTTPS_PROXY / HTTP_PROXY (lower case
 * first, as curl reads them), and falls back to the runtime's own fetch when there is none or for
 * other schemes (data:, blob:). Why it is needed:
 * - Node 20's fetch ignores the proxy variables (NODE_USE_ENV_PROXY came in Node 22.21 and 24.5);
 * - Deno's fetch honours them but checks its --allow-net permission against the *target* host, so
 *   the program could only use it by being granted the targets, which would let it open sockets to
 *   them directly, past the proxy's checks and log. With this fetch, Deno's permission names only
 *   the worker's proxy address, and every connection goes through the proxy.
 * http:// targets go as absolute-form requests, https:// through CONNECT with TLS from the program
 * to the target (the proxy never sees inside); a 403 from the proxy comes back as the response
 * (http) or as a TypeError quoting the proxy's reason (https, where there is no response).
 * Redirects are followed as fetch does (at most 20; 303, and 301/302 after POST, become GET);
 * gzip, deflate and br bodies are decoded when the program set no Accept-Encoding of its own.
 * Request bodies are read whole before sending. Extra CA certificates: NODE_EXTRA_CA_CERTS (a PEM
 * file), read at each request. Where THINKTANK_EGRESS_SOCKET names the proxy's Unix socket
 * (bubblewrap), requests go to it directly rather than to the forwarder's TCP address. The source is plain JavaScript, evaluated inside the bootstraps:
 * `thinktankProxiedFetch(getEnv, nativeFetch, loadModules)`, where `loadModules` resolves to the
 * node modules it uses (`proxiedFetchModules`, imported on the first proxied request only).
 */
export const proxiedFetchSource = String.raw`
function thinktankProxiedFetch(getEnv, nativeFetch, loadModules) {
  let modules;
  const load = async () => (modules ??= await loadModules());
  const proxyFor = (url) => {
    const env = getEnv() ?? {};
    const value = url.protocol === "https:" ? env.https_proxy || env.HTTPS_PROXY : env.http_proxy || env.HTTP_PROXY;
    if (!value) return undefined;
    try { return new URL(value.includes("://") ? value : "http://" + value); } catch { return undefined; }
  };
  const failure = (message, cause) => new TypeError("fetch failed: " + message, cause === undefined ? undefined : { cause });
  const redirectStatuses = new Set([301, 302, 303, 307, 308]);
  // Node's bundled roots (a ca option replaces them); Deno adds a ca option to its own and asks --allow-sys=ca for this list.
  const roots = (m) => { try { return [...m.tls.rootCertificates]; } catch { return []; } };

  function send(m, url, method, headers, body, proxy, signal, decode) {
    return new Promise((resolve, reject) => {
      // The proxy's own socket when the sandbox offers it (bubblewrap: one hop fewer than its forwarder), else its URL's address.
      const socketPath = getEnv()?.THINKTANK_EGRESS_SOCKET;
      const via = socketPath ? { socketPath } : { host: proxy.hostname.replace(/^\[|\]$/g, ""), port: Number(proxy.port || 80) };
      const authorization = proxy.username ? "Basic " + m.Buffer.from(decodeURIComponent(proxy.username) + ":" + decodeURIComponent(proxy.password)).toString("base64") : undefined;
      const targetPort = url.port || (url.protocol === "https:" ? "443" : "80");
      const authority = (url.hostname.includes(":") && !url.hostname.startsWith("[") ? "[" + url.hostname + "]" : url.hostname) + ":" + targetPort;
      const out = {};
      headers.forEach((value, name) => { out[name] = value; });
      out.host = url.host;
      if (decode) out["accept-encoding"] = "gzip, deflate, br";
      if (!headers.has("accept")) out.accept = "*/*";
      if (body !== undefined) out["content-length"] = String(body.length);
      const pending = new Set();
      const abort = () => { for (const item of pending) item.destroy(); reject(signal.reason ?? new DOMException("This operation was aborted", "AbortError")); };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      const done = () => signal?.removeEventListener("abort", abort);
      const answer = (response) => {
        done();
        const responseHeaders = new Headers();
        for (let index = 0; index < response.rawHeaders.length; index += 2) {
          try { responseHeaders.append(response.rawHeaders[index], response.rawHeaders[index + 1]); } catch { /* a header fetch cannot hold */ }
        }
        let stream = response;
        const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
        if (decode && (encoding === "gzip" || encoding === "x-gzip")) stream = response.pipe(m.zlib.createGunzip());
        else if (decode && encoding === "deflate") stream = response.pipe(m.zlib.createInflate());
        else if (decode && encoding === "br") stream = response.pipe(m.zlib.createBrotliDecompress());
        if (stream !== response) response.on("error", (error) => stream.destroy(error));
        const empty = method === "HEAD" || [101, 204, 205, 304].includes(response.statusCode);
        if (empty) response.resume();
        resolve(new Response(empty ? null : m.Readable.toWeb(stream), { status: response.statusCode, statusText: response.statusMessage, headers: responseHeaders }));
      };
      const fail = (error) => { done(); reject(failure(error?.message ?? String(error), error)); };
      const request = (options) => {
        const outgoing = m.http.request(options);
        pending.add(outgoing);
        outgoing.on("response", answer);
        outgoing.on("error", fail);
        outgoing.end(body);
      };
      if (url.protocol === "http:") {
        request({ ...via, method, path: url.href, headers: authorization ? { ...out, "proxy-authorization": authorization } : out });
        return;
      }
      const tunnel = m.http.request({ ...via, method: "CONNECT", path: authority, headers: { host: authority, ...(authorization ? { "proxy-authorization": authorization } : {}) }, agent: false });
      pending.add(tunnel);
      tunnel.on("error", fail);
      tunnel.on("connect", (response, socket) => {
        pending.add(socket);
        if (response.statusCode !== 200) {
          socket.destroy();
          const details = /details="([^"]*)"/.exec(String(response.headers["proxy-status"] ?? ""))?.[1];
          done();
          reject(failure("the egress proxy answered " + response.statusCode + " to CONNECT " + authority + (details ? ": " + details : "")));
          return;
        }
        const extra = getEnv()?.NODE_EXTRA_CA_CERTS;
        let ca;
        try { ca = extra ? [...roots(m), m.fs.readFileSync(extra, "utf8")] : undefined; } catch (error) { socket.destroy(); fail(error); return; }
        const isIp = /^[\d.]+$/.test(url.hostname) || url.hostname.includes(":");
        const secure = m.tls.connect({ socket, ...(isIp ? {} : { servername: url.hostname }), ...(ca ? { ca } : {}), ALPNProtocols: ["http/1.1"] });
        pending.add(secure);
        secure.on("error", fail);
        request({ createConnection: () => secure, method, path: url.pathname + url.search, headers: out });
      });
      tunnel.end();
    });
  }

  return async function fetch(input, init) {
    const first = new Request(input, init);
    const start = new URL(first.url);
    if (start.protocol !== "http:" && start.protocol !== "https:") return nativeFetch(input, init);
    if (!proxyFor(start)) return nativeFetch(input, init);
    const m = await load();
    let body = first.body ? m.Buffer.from(await first.arrayBuffer()) : undefined;
    let method = first.method;
    const headers = new Headers(first.headers);
    const decode = !headers.has("accept-encoding");
    let url = start;
    for (let redirects = 0; ; redirects++) {
      const proxy = proxyFor(url);
      if (!proxy) throw failure("no proxy for " + url.protocol + " (HTTPS_PROXY / HTTP_PROXY) after a redirect to " + url.href);
      const response = await send(m, url, method, headers, body, proxy, first.signal, decode);
      const location = response.headers.get("location");
      if (!redirectStatuses.has(response.status) || location === null || first.redirect === "manual") {
        Object.defineProperty(response, "url", { value: url.href });
        Object.defineProperty(response, "redirected", { value: redirects > 0 });
        return response;
      }
      await response.body?.cancel();
      if (first.redirect === "error") throw failure("redirect mode is 'error' and " + url.href + " redirects");
      if (redirects >= 20) throw failure("more than 20 redirects");
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:") throw failure("redirect to " + next.protocol + " refused");
      if (response.status === 303 ? method !== "HEAD" : (response.status === 301 || response.status === 302) && method === "POST") {
        method = "GET";
        body = undefined;
        for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
      }
      if (next.origin !== url.origin) for (const name of ["authorization", "cookie", "proxy-authorization"]) headers.delete(name);
      url = next;
    }
  };
}
`;

/** What the bootstraps pass as `loadModules` (dynamic imports work in their modules, not in code evaluated from a string). */
export const proxiedFetchModules = String.raw`async () => ({
  http: (await import("node:http")).default,
  tls: (await import("node:tls")).default,
  zlib: (await import("node:zlib")).default,
  fs: (await import("node:fs")).default,
  Buffer: (await import("node:buffer")).Buffer,
  Readable: (await import("node:stream")).Readable,
})`;
