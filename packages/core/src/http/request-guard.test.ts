import { describe, expect, it } from "vitest";
import { checkRequestSource, isAllowedOrigin, isLoopbackAddress } from "./request-guard.js";
import type { RequestGuardPolicy, RequestHeadersView } from "./request-guard.js";

const loopback: RequestGuardPolicy = { boundHost: "127.0.0.1", allowedHosts: [], allowedOrigins: [] };
const verdict = (method: string, headers: RequestHeadersView, policy: RequestGuardPolicy = loopback) => {
  const result = checkRequestSource(method, headers, policy);
  return result.ok ? "ok" : result.code;
};

describe("checkRequestSource: Host", () => {
  it("answers the loopback names when listening on loopback, and nothing else", () => {
    for (const host of ["127.0.0.1:8001", "localhost:8001", "LOCALHOST", "localhost.:8001", "[::1]:8001", "127.0.0.1", "127.1:8001"]) {
      expect(verdict("GET", { host }), host).toBe("ok");
    }
    for (const host of ["evil.example:8001", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.5:8001", "", " ", "a b", "user@127.0.0.1", "127.0.0.1/x"]) {
      expect(verdict("GET", { host }), host).toBe("HOST_NOT_ALLOWED");
    }
    expect(verdict("GET", {})).toBe("HOST_NOT_ALLOWED");
  });

  it("answers configured names, the bound address, and any name on a wildcard address only when none are configured", () => {
    const named: RequestGuardPolicy = { boundHost: "127.0.0.1", allowedHosts: ["thinktank.internal"], allowedOrigins: [] };
    expect(verdict("GET", { host: "Thinktank.Internal:8001" }, named)).toBe("ok");
    expect(verdict("GET", { host: "other.internal:8001" }, named)).toBe("HOST_NOT_ALLOWED");
    const specific: RequestGuardPolicy = { boundHost: "10.0.0.5", allowedHosts: [], allowedOrigins: [] };
    expect(verdict("GET", { host: "10.0.0.5:8001" }, specific)).toBe("ok");
    expect(verdict("GET", { host: "localhost:8001" }, specific)).toBe("HOST_NOT_ALLOWED");
    const wildcard: RequestGuardPolicy = { boundHost: "0.0.0.0", allowedHosts: [], allowedOrigins: [] };
    expect(verdict("GET", { host: "gateway:8001" }, wildcard)).toBe("ok");
    const wildcardNamed: RequestGuardPolicy = { boundHost: "::", allowedHosts: ["api.example.com"], allowedOrigins: [] };
    expect(verdict("GET", { host: "api.example.com" }, wildcardNamed)).toBe("ok");
    expect(verdict("GET", { host: "localhost:8001" }, wildcardNamed)).toBe("ok");
    expect(verdict("GET", { host: "evil.example" }, wildcardNamed)).toBe("HOST_NOT_ALLOWED");
  });
});

describe("checkRequestSource: Origin", () => {
  const host = "127.0.0.1:8001";
  it("refuses mutating requests from a foreign, opaque or malformed origin, and reads are not judged by Origin", () => {
    for (const origin of ["http://evil.example", "https://127.0.0.1.evil.example", "null", "file://", "chrome-extension://abc", "http://localhost:3000", "not a url"]) {
      expect(verdict("POST", { host, origin }), origin).toBe("ORIGIN_NOT_ALLOWED");
      expect(verdict("delete", { host, origin }), origin).toBe("ORIGIN_NOT_ALLOWED");
      expect(verdict("GET", { host, origin }), origin).toBe("ok");
    }
  });

  it("refuses a mutating browser request without Origin that says it is cross-site or same-site", () => {
    expect(verdict("POST", { host, "sec-fetch-site": "cross-site" })).toBe("ORIGIN_NOT_ALLOWED");
    expect(verdict("PUT", { host, "sec-fetch-site": "Same-Site" })).toBe("ORIGIN_NOT_ALLOWED");
    expect(verdict("POST", { host, "sec-fetch-site": "same-origin" })).toBe("ok");
    expect(verdict("POST", { host, "sec-fetch-site": "none" })).toBe("ok");
    expect(verdict("POST", { host })).toBe("ok"); // curl, the CLI, an SDK
  });

  it("takes the service's own pages and the configured origins", () => {
    expect(verdict("POST", { host, origin: "http://127.0.0.1:8001" })).toBe("ok");
    expect(verdict("POST", { host, origin: "http://127.0.0.1:8002" })).toBe("ORIGIN_NOT_ALLOWED");
    const policy: RequestGuardPolicy = { ...loopback, allowedOrigins: ["http://localhost:3000", "https://app.example.com"] };
    expect(verdict("POST", { host, origin: "http://localhost:3000" }, policy)).toBe("ok");
    expect(verdict("POST", { host, origin: "HTTPS://APP.example.com:443" }, policy)).toBe("ok");
    expect(verdict("POST", { host, origin: "http://app.example.com" }, policy)).toBe("ORIGIN_NOT_ALLOWED");
    expect(isAllowedOrigin("http://localhost:3000", policy)).toBe(true);
    expect(isAllowedOrigin("http://localhost:3001", policy)).toBe(false);
    expect(isAllowedOrigin("null", policy)).toBe(false);
  });
});

describe("isLoopbackAddress", () => {
  it("knows loopback names and addresses", () => {
    for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com", "localhost.example.com"]) expect(isLoopbackAddress(host), host).toBe(false);
  });
});
