import { describe, expect, it } from "vitest";
import { matchPattern, normaliseTarget, parseHostPattern, type HostPattern } from "./host-pattern.js";

const patterns = (...texts: string[]): HostPattern[] =>
  texts.map((text) => {
    const parsed = parseHostPattern(text);
    if ("problem" in parsed) throw new Error(parsed.problem);
    return parsed;
  });

const allows = (list: HostPattern[], host: string, port: number): boolean => {
  const target = normaliseTarget(host);
  return target !== undefined && matchPattern(list, target, port) !== undefined;
};

describe("parseHostPattern", () => {
  it("reads names, wildcards, ports and IP addresses", () => {
    expect(parseHostPattern("API.GitHub.com")).toMatchObject({ host: "api.github.com", wildcard: false, ports: [80, 443] });
    expect(parseHostPattern("*.example.com:8443")).toMatchObject({ host: "example.com", wildcard: true, ports: [8443] });
    expect(parseHostPattern("127.0.0.1:9000")).toMatchObject({ host: "127.0.0.1", isIp: true, ports: [9000] });
    expect(parseHostPattern("[::1]:80")).toMatchObject({ host: "::1", isIp: true, ports: [80] });
    expect(parseHostPattern("[2001:DB8::1]")).toMatchObject({ host: "2001:db8::1", ports: [80, 443] });
  });

  it.each(["", "*.", "a..b", "-a.com", "a.com:0", "a.com:65536", "a.com:http", "*.10.0.0.1", "127.1", "0x7f.0.0.1", "2130706433", "example.123", "::1", "[fe80::1%eth0]", "a b.com", "exämple.com", "*.*.a.com", "a.com."])("refuses %j", (text) => {
    expect(parseHostPattern(text)).toHaveProperty("problem");
  });
});

describe("normaliseTarget", () => {
  it("reads odd spellings as a URL parser does", () => {
    expect(normaliseTarget("0x7f.1")).toEqual({ host: "127.0.0.1", isIp: true });
    expect(normaliseTarget("2130706433")).toEqual({ host: "127.0.0.1", isIp: true });
    expect(normaliseTarget("0177.0.0.1")).toEqual({ host: "127.0.0.1", isIp: true });
    expect(normaliseTarget("127.1")).toEqual({ host: "127.0.0.1", isIp: true });
    expect(normaliseTarget("[::ffff:127.0.0.1]")).toEqual({ host: "::ffff:7f00:1", isIp: true });
    expect(normaliseTarget("::1")).toEqual({ host: "::1", isIp: true });
    expect(normaliseTarget("Example.COM.")).toEqual({ host: "example.com", isIp: false });
    expect(normaliseTarget("%65xample.com")).toEqual({ host: "example.com", isIp: false });
    expect(normaliseTarget("bücher.example")).toEqual({ host: "xn--bcher-kva.example", isIp: false });
    expect(normaliseTarget("ＥＸＡＭＰＬＥ.com")).toEqual({ host: "example.com", isIp: false });
  });

  it.each(["", "a..b", "example.com..", "a b", "a/b", "user@host", "1.2.3.4.5", "999.1.1.1", "example.08", "a%00b", "[::1"])("refuses %j", (host) => {
    expect(normaliseTarget(host)).toBeUndefined();
  });
});

describe("matchPattern", () => {
  it("a pattern without a port allows 80 and 443 only", () => {
    const list = patterns("api.github.com");
    expect(allows(list, "api.github.com", 443)).toBe(true);
    expect(allows(list, "api.github.com", 80)).toBe(true);
    expect(allows(list, "api.github.com", 22)).toBe(false);
    expect(allows(list, "API.GITHUB.COM.", 443)).toBe(true);
    expect(allows(list, "github.com", 443)).toBe(false);
    expect(allows(list, "evil-api.github.com", 443)).toBe(false);
    expect(allows(list, "api.github.com.evil.com", 443)).toBe(false);
  });

  it("a wildcard allows names below the domain, not the domain itself", () => {
    const list = patterns("*.example.com:8443");
    expect(allows(list, "a.example.com", 8443)).toBe(true);
    expect(allows(list, "a.b.example.com", 8443)).toBe(true);
    expect(allows(list, "example.com", 8443)).toBe(false);
    expect(allows(list, "badexample.com", 8443)).toBe(false);
    expect(allows(list, "a.example.com", 443)).toBe(false);
  });

  it("an IP address is allowed only when listed as that address, in any spelling", () => {
    const list = patterns("127.0.0.1:9000", "*.example.com", "localhost:9000");
    expect(allows(list, "127.0.0.1", 9000)).toBe(true);
    expect(allows(list, "0x7f.1", 9000)).toBe(true);
    expect(allows(list, "2130706433", 9000)).toBe(true);
    expect(allows(list, "127.0.0.2", 9000)).toBe(false);
    // The IPv6 forms of a listed IPv4 address are other addresses: not listed.
    expect(allows(list, "[::ffff:127.0.0.1]", 9000)).toBe(false);
    expect(allows(patterns("[::1]:9000"), "[0:0:0:0:0:0:0:1]", 9000)).toBe(true);
  });

  it("IDN targets match their punycode pattern", () => {
    expect(allows(patterns("xn--bcher-kva.example"), "BÜCHER.example", 443)).toBe(true);
  });
});
