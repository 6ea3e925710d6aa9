import { describe, expect, it } from "vitest";
import { classifyAddress } from "./address-class.js";
import { formatIp, parseIp } from "./ip-address.js";
import { findAllowance, parsePrivateAllowance, type PrivateAllowance } from "./private-allowance.js";

const kindOf = (text: string): string => {
  const address = parseIp(text);
  if (!address) throw new Error(`not an address: ${text}`);
  return classifyAddress(address).kind;
};

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.10", "documentation"],
    ["198.18.0.1", "reserved"],
  ])("IPv4 %s is %s", (address, kind) => {
    expect(kindOf(address)).toBe(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "169.253.255.255", "11.0.0.1", "223.255.255.255"])("IPv4 %s is public", (address) => {
    expect(kindOf(address)).toBe("public");
  });

  it.each([
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001::1", "reserved"],
    ["64:ff9b:1::1", "private"],
    ["100::1", "reserved"],
  ])("IPv6 %s is %s", (address, kind) => {
    expect(kindOf(address)).toBe(kind);
  });

  it.each(["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450::1"])("IPv6 %s is public", (address) => {
    expect(kindOf(address)).toBe("public");
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["::ffff:0:a00:1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
  ])("an IPv6 form of an IPv4 address is judged by it: %s is %s", (address, kind) => {
    expect(kindOf(address)).toBe(kind);
  });

  it("says what is inside a mapped address", () => {
    expect(classifyAddress(parseIp("::ffff:169.254.169.254")!).description).toBe("link-local, the cloud metadata service (169.254.169.254) inside ::ffff:a9fe:a9fe");
    expect(kindOf("::ffff:8.8.8.8")).toBe("public");
    expect(kindOf("64:ff9b::8.8.8.8")).toBe("public");
  });

  it("reads only canonical text: other IPv4 spellings are not addresses here", () => {
    for (const odd of ["0x7f.1", "2130706433", "127.1", "0177.0.0.1", "127.0.0.01", "1.2.3", "256.1.1.1", "[::1]"]) expect(parseIp(odd)).toBeUndefined();
  });

  it("formats IPv6 canonically (RFC 5952)", () => {
    expect(formatIp(parseIp("2001:0DB8:0:0:0:0:0:1")!)).toBe("2001:db8::1");
    expect(formatIp(parseIp("::ffff:127.0.0.1")!)).toBe("::ffff:7f00:1");
    expect(formatIp(parseIp("1:0:0:2:0:0:0:3")!)).toBe("1:0:0:2::3");
    expect(formatIp(parseIp("::")!)).toBe("::");
  });
});

describe("allowed_private entries", () => {
  const parse = (text: string): PrivateAllowance => {
    const parsed = parsePrivateAllowance(text);
    if ("problem" in parsed) throw new Error(parsed.problem);
    return parsed;
  };

  it("reads addresses and blocks, with or without a port", () => {
    expect(parse("127.0.0.1")).toMatchObject({ block: { family: 4, bits: 32 } });
    expect(parse("127.0.0.1:8080")).toMatchObject({ port: 8080 });
    expect(parse("10.0.0.0/8:5432")).toMatchObject({ block: { bits: 8 }, port: 5432 });
    expect(parse("::1")).toMatchObject({ block: { family: 6, bits: 128 } });
    expect(parse("fd00::/8")).toMatchObject({ block: { family: 6, bits: 8 } });
    expect(parse("[::1]:8080")).toMatchObject({ block: { family: 6 }, port: 8080 });
    expect(parse("[fd00::]/8:443")).toMatchObject({ block: { bits: 8 }, port: 443 });
    expect(parse("[fd00::/8]:443")).toMatchObject({ block: { bits: 8 }, port: 443 });
  });

  it.each(["localhost", "10.0.0.0/33", "10.0.0.1:0", "10.0.0.1:70000", "::1:8080:", "1.2.3", "[::1", "127.1"])("refuses %s", (text) => {
    expect(parsePrivateAllowance(text)).toHaveProperty("problem");
  });

  it("matches the address and port, and an IPv4 entry covers that address's IPv6 forms", () => {
    const entries = ["127.0.0.1:8080", "10.0.0.0/8"].map(parse);
    expect(findAllowance(entries, parseIp("127.0.0.1")!, 8080)?.text).toBe("127.0.0.1:8080");
    expect(findAllowance(entries, parseIp("127.0.0.1")!, 8081)).toBeUndefined();
    expect(findAllowance(entries, parseIp("10.200.0.1")!, 22)?.text).toBe("10.0.0.0/8");
    expect(findAllowance(entries, parseIp("::ffff:10.200.0.1")!, 22)?.text).toBe("10.0.0.0/8");
    expect(findAllowance(entries, parseIp("11.0.0.1")!, 80)).toBeUndefined();
    expect(findAllowance([parse("::1")], parseIp("127.0.0.1")!, 80)).toBeUndefined();
  });
});
