/**
 * Which addresses the egress proxy refuses unless config lists them (`sandbox.network.allowed_private`):
 * everything not globally reachable (loopback, private, link-local with the cloud metadata address,
 * CGNAT, "this network", multicast, documentation, benchmarking and reserved blocks), IPv4 and
 * IPv6, including IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4), which
 * are judged by the IPv4 address inside them.
 */
import { blockContains, formatIp, parseBlock, type IpAddress, type IpBlock } from "./ip-address.js";

/** Why an address is not public. */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "cgnat" | "unspecified" | "multicast" | "documentation" | "reserved";

interface SpecialBlock {
  readonly block: IpBlock;
  readonly kind: Exclude<AddressClass, "public">;
  readonly note?: string;
}

const special = (text: string, kind: SpecialBlock["kind"], note?: string): SpecialBlock => ({ block: parseBlock(text) as IpBlock, kind, ...(note ? { note } : {}) });

// IANA's special-purpose registries (RFC 6890 and updates), the parts that are not globally reachable.
const ipv4Blocks: readonly SpecialBlock[] = [
  special("0.0.0.0/8", "unspecified", "this network"),
  special("10.0.0.0/8", "private"),
  special("100.64.0.0/10", "cgnat", "carrier-grade NAT"),
  special("127.0.0.0/8", "loopback"),
  special("169.254.169.254/32", "link-local", "the cloud metadata service"),
  special("169.254.0.0/16", "link-local"),
  special("172.16.0.0/12", "private"),
  special("192.0.0.0/24", "reserved", "IETF protocol assignments"),
  special("192.0.2.0/24", "documentation"),
  special("192.88.99.0/24", "reserved", "6to4 relay anycast"),
  special("192.168.0.0/16", "private"),
  special("198.18.0.0/15", "reserved", "benchmarking"),
  special("198.51.100.0/24", "documentation"),
  special("203.0.113.0/24", "documentation"),
  special("224.0.0.0/4", "multicast"),
  special("240.0.0.0/4", "reserved", "including broadcast"),
];

const ipv6Blocks: readonly SpecialBlock[] = [
  special("::/128", "unspecified"),
  special("::1/128", "loopback"),
  special("64:ff9b:1::/48", "private", "local-use NAT64"),
  special("100::/64", "reserved", "discard-only"),
  special("2001:db8::/32", "documentation"),
  special("2001::/23", "reserved", "IETF protocol assignments, Teredo"),
  special("3fff::/20", "documentation"),
  special("fd00:ec2::254/128", "private", "the cloud metadata service"),
  special("fc00::/7", "private", "unique local"),
  special("fe80::/10", "link-local"),
  special("fec0::/10", "private", "site-local"),
  special("ff00::/8", "multicast"),
];

/** IPv6 blocks whose addresses carry an IPv4 address in their low 32 bits (6to4 keeps it in bits 16-48). */
const mapped = parseBlock("::ffff:0:0/96") as IpBlock;
const translated = parseBlock("::ffff:0:0:0/96") as IpBlock;
const compatible = parseBlock("::/96") as IpBlock;
const nat64 = parseBlock("64:ff9b::/96") as IpBlock;
const sixToFour = parseBlock("2002::/16") as IpBlock;

/** The IPv4 address an IPv6 address stands for (mapped, translated, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 6) return undefined;
  if (blockContains(mapped, address) || blockContains(translated, address) || blockContains(nat64, address)) return { family: 4, value: address.value & 0xffffffffn };
  // ::/96 holds :: and ::1 too, which are IPv6's own unspecified and loopback addresses.
  if (blockContains(compatible, address) && address.value > 1n) return { family: 4, value: address.value & 0xffffffffn };
  if (blockContains(sixToFour, address)) return { family: 4, value: (address.value >> 80n) & 0xffffffffn };
  return undefined;
}

export interface AddressVerdict {
  readonly kind: AddressClass;
  /** A short description for the refusal reason, e.g. "loopback (127.0.0.1 inside ::ffff:127.0.0.1)". */
  readonly description: string;
}

/** Classifies an address; an IPv6 form of an IPv4 address is judged by the IPv4 address. */
export function classifyAddress(address: IpAddress): AddressVerdict {
  const inner = embeddedIpv4(address);
  if (inner) {
    const verdict = classifyAddress(inner);
    return verdict.kind === "public" ? verdict : { kind: verdict.kind, description: `${verdict.description} inside ${formatIp(address)}` };
  }
  const blocks = address.family === 4 ? ipv4Blocks : ipv6Blocks;
  const found = blocks.find((entry) => blockContains(entry.block, address));
  if (!found) return { kind: "public", description: "public" };
  const text = formatIp(address);
  return { kind: found.kind, description: `${found.kind}${found.note ? `, ${found.note}` : ""} (${text})` };
}
