import { embeddedIpv4 } from "./address-class.js";
import { blockContains, parseBlock, type IpAddress, type IpBlock } from "./ip-address.js";

/** One `sandbox.network.allowed_private` entry: an address block, and a port when one is given. */
export interface PrivateAllowance {
  readonly block: IpBlock;
  readonly port?: number;
  /** The entry as config wrote it. */
  readonly text: string;
}

/**
 * Parses an `allowed_private` entry: `10.0.0.5`, `10.0.0.0/8`, `127.0.0.1:8080`, `10.0.0.0/8:5432`,
 * `::1`, `fd00::/8`, `[::1]:8080`, `[fd00::]/8:443` or `[fd00::/8]:443` (an IPv6 address is bracketed
 * when a port follows). A problem in words otherwise.
 */
export function parsePrivateAllowance(text: string): PrivateAllowance | { problem: string } {
  const problem = { problem: `allowed_private: ${JSON.stringify(text)} is not an address or CIDR block with an optional :port (e.g. 10.0.0.0/8, 127.0.0.1:8080, [::1]:8080)` };
  let blockText = text;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](\/\d{1,3})?(?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    blockText = `${bracketed[1] as string}${bracketed[2] ?? ""}`;
    portText = bracketed[3];
  } else if (!text.includes("::") && text.split(":").length === 2) {
    // IPv4 (or an IPv4 block) with a port: exactly one colon.
    [blockText, portText] = text.split(":") as [string, string];
  }
  const block = parseBlock(blockText);
  if (!block) return problem;
  if (portText === undefined) return { block, text };
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) return problem;
  return { block, port, text };
}

/** The entry that lets the proxy connect to `address` on `port`, if any; an IPv4 entry also covers that address's IPv6 forms. */
export function findAllowance(allowances: readonly PrivateAllowance[], address: IpAddress, port: number): PrivateAllowance | undefined {
  const inner = embeddedIpv4(address);
  return allowances.find((allowance) => (allowance.port === undefined || allowance.port === port) && (blockContains(allowance.block, address) || (inner !== undefined && blockContains(allowance.block, inner))));
}
