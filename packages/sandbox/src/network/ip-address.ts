/**
 * IP addresses as numbers, for range checks: IPv4 in 32 bits, IPv6 in 128 (both as bigint). Only
 * canonical text is read here (dotted-quad IPv4 with four decimal parts, IPv6 as Node prints or
 * accepts it, an optional zone id dropped); odd IPv4 spellings (0x7f.1, 2130706433) are turned
 * into canonical text by the URL parser before a target reaches this module (see `normaliseTarget`).
 */
import net from "node:net";

export interface IpAddress {
  readonly family: 4 | 6;
  /** The address as a number: 32 bits for IPv4, 128 for IPv6. */
  readonly value: bigint;
}

/** An address block: `bits` leading bits of `value` fixed. */
export interface IpBlock {
  readonly family: 4 | 6;
  readonly value: bigint;
  readonly bits: number;
}

const dottedQuad = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Parses a canonical IPv4 or IPv6 address (an IPv6 zone id such as `%eth0` is dropped); undefined otherwise. */
export function parseIp(text: string): IpAddress | undefined {
  if (dottedQuad.test(text)) return { family: 4, value: ipv4Value(text) };
  const withoutZone = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (!net.isIPv6(withoutZone)) return undefined;
  return { family: 6, value: ipv6Value(withoutZone) };
}

function ipv4Value(text: string): bigint {
  return text.split(".").reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(text: string): bigint {
  let address = text.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (quad) {
    const value = ipv4Value(quad[1] as string);
    address = `${address.slice(0, quad.index)}${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = address.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill("0"), ...tailGroups];
  return groups.reduce((sum, group) => (sum << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, the longest run of zero groups as ::). */
export function formatIp(address: IpAddress): string {
  if (address.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, index) => Number((address.value >> BigInt((7 - index) * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** Parses `address/bits` (or a bare address: all bits); undefined when malformed. */
export function parseBlock(text: string): IpBlock | undefined {
  const slash = text.indexOf("/");
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!address) return undefined;
  const width = address.family === 4 ? 32 : 128;
  if (slash < 0) return { ...address, bits: width };
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > width) return undefined;
  return { family: address.family, value: address.value & mask(address.family, bits), bits };
}

/** Whether the block holds the address (same family only). */
export function blockContains(block: IpBlock, address: IpAddress): boolean {
  return block.family === address.family && (address.value & mask(block.family, block.bits)) === block.value;
}

function mask(family: 4 | 6, bits: number): bigint {
  const width = family === 4 ? 32 : 128;
  const all = (1n << BigInt(width)) - 1n;
  return bits === 0 ? 0n : (all >> BigInt(width - bits)) << BigInt(width - bits);
}
