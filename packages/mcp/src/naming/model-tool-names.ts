import { createHash } from "node:crypto";
import { ThinktankError } from "@thinktank/core";

/** One server and the tools it lists (only `name` is read; MCP Tool objects fit as they are). */
export interface ModelToolServer {
  readonly server: string;
  readonly tools: readonly { readonly name: string }[];
}

/** Where a model-facing name points. */
export interface ModelToolRef {
  readonly server: string;
  readonly tool: string;
}

export type ModelToolRenameReason = "sanitised" | "truncated" | "collision";

/** A tool whose model-facing name is not simply `<prefix><server><separator><tool>`, and why. */
export interface ModelToolRename extends ModelToolRef {
  readonly name: string;
  readonly reasons: readonly ModelToolRenameReason[];
}

/** Tools whose names came out the same (compared without regard to case); `kept` is the one that kept it. */
export interface ModelToolCollision {
  readonly candidate: string;
  readonly kept: ModelToolRef;
  readonly renamed: readonly (ModelToolRef & { readonly name: string })[];
}

export interface ModelToolNaming {
  /** Model-facing name → the tool it calls. Every key matches ^[a-zA-Z0-9_-]{1,maxLength}$ and is unique without regard to case. */
  readonly names: ReadonlyMap<string, ModelToolRef>;
  /** The model-facing name of a tool, or undefined when the tool was not in the input. */
  nameOf(server: string, tool: string): string | undefined;
  readonly collisions: readonly ModelToolCollision[];
  readonly renamed: readonly ModelToolRename[];
  /** A server that listed the same tool name more than once: only the first counts. */
  readonly duplicates: readonly ModelToolRef[];
}

export interface ModelToolNamesOptions {
  /** Put before every name, e.g. "mcp__". Must itself be made of [a-zA-Z0-9_-]. @default "" */
  readonly prefix?: string;
  /** Between the server part and the tool part. Must be made of [a-zA-Z0-9_-]. @default "__" */
  readonly separator?: string;
  /** Longest name a model accepts. @default 64 */
  readonly maxLength?: number;
}

const validChars = /^[A-Za-z0-9_-]*$/;
const hashLength = 6;

/**
 * Model-facing tool names for every tool of every server: `<prefix><server><separator><tool>`,
 * with every character outside [a-zA-Z0-9_-] replaced (accents dropped first), cut to `maxLength`
 * with a short hash of the original names when too long, and unique without regard to case.
 *
 * Deterministic and independent of input order: tools are taken sorted by (server, tool); in a
 * collision the tool whose name needed no change keeps it (else the first in that order), and the
 * others get `_<hash>` of their original server and tool names. Everything renamed is reported.
 */
export function modelToolNames(servers: readonly ModelToolServer[], options: ModelToolNamesOptions = {}): ModelToolNaming {
  const { prefix = "", separator = "__", maxLength = 64 } = options;
  if (!validChars.test(prefix)) throw optionError("prefix", prefix);
  if (!validChars.test(separator) || separator === "") throw optionError("separator", separator);
  if (!Number.isInteger(maxLength) || maxLength < prefix.length + separator.length + 2 * hashLength + 4) {
    throw new ThinktankError("VALIDATION_FAILED", `modelToolNames: maxLength must be an integer of at least ${prefix.length + separator.length + 2 * hashLength + 4} for this prefix and separator; got ${String(maxLength)}`);
  }

  const { entries, duplicates } = collect(servers);
  const candidates = entries.map((ref) => candidateFor(ref, prefix, separator, maxLength));
  const groups = new Map<string, number[]>();
  candidates.forEach((c, index) => {
    const key = c.name.toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });

  const assigned: string[] = new Array<string>(entries.length);
  const reasons: ModelToolRenameReason[][] = candidates.map((c) => [...c.reasons]);
  const taken = new Set<string>();
  const losers: number[] = [];
  const collisions: { candidate: string; kept: number; renamed: number[] }[] = [];
  for (const members of groups.values()) {
    const keeper = members.find((i) => candidates[i]!.reasons.length === 0) ?? members[0]!;
    assigned[keeper] = candidates[keeper]!.name;
    taken.add(assigned[keeper].toLowerCase());
    const others = members.filter((i) => i !== keeper);
    if (others.length > 0) collisions.push({ candidate: candidates[keeper]!.name, kept: keeper, renamed: others });
    losers.push(...others);
  }
  for (const index of losers.sort((a, b) => a - b)) {
    const ref = entries[index]!;
    let attempt = 0;
    let name: string;
    do {
      name = withSuffix(candidates[index]!.name, shortHash(ref, attempt), maxLength);
      attempt++;
    } while (taken.has(name.toLowerCase()));
    assigned[index] = name;
    taken.add(name.toLowerCase());
    reasons[index]!.push("collision");
  }

  const names = new Map<string, ModelToolRef>();
  const byServer = new Map<string, Map<string, string>>();
  const renamed: ModelToolRename[] = [];
  entries.forEach((ref, index) => {
    const name = assigned[index]!;
    names.set(name, ref);
    const tools = byServer.get(ref.server) ?? new Map<string, string>();
    tools.set(ref.tool, name);
    byServer.set(ref.server, tools);
    if (reasons[index]!.length > 0) renamed.push({ ...ref, name, reasons: reasons[index]! });
  });
  return {
    names,
    nameOf: (server, tool) => byServer.get(server)?.get(tool),
    collisions: collisions.map((c) => ({
      candidate: c.candidate,
      kept: entries[c.kept]!,
      renamed: c.renamed.map((i) => ({ ...entries[i]!, name: assigned[i]! })),
    })),
    renamed,
    duplicates,
  };
}

/** Replaces every run of characters outside [a-zA-Z0-9_-] with one underscore, after dropping accents. */
export function sanitizeNamePart(text: string): string {
  const ascii = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const cleaned = ascii.replace(/[^A-Za-z0-9_-]+/g, "_");
  return cleaned === "" ? "_" : cleaned;
}

function collect(servers: readonly ModelToolServer[]): { entries: ModelToolRef[]; duplicates: ModelToolRef[] } {
  const seen = new Set<string>();
  const entries: ModelToolRef[] = [];
  const duplicates: ModelToolRef[] = [];
  for (const server of servers) {
    for (const tool of server.tools) {
      const key = `${server.server}\u0000${tool.name}`;
      if (seen.has(key)) {
        duplicates.push({ server: server.server, tool: tool.name });
        continue;
      }
      seen.add(key);
      entries.push({ server: server.server, tool: tool.name });
    }
  }
  entries.sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  return { entries, duplicates };
}

function candidateFor(ref: ModelToolRef, prefix: string, separator: string, maxLength: number): { name: string; reasons: ModelToolRenameReason[] } {
  const reasons: ModelToolRenameReason[] = [];
  const server = sanitizeNamePart(ref.server);
  const tool = sanitizeNamePart(ref.tool);
  if (server !== ref.server || tool !== ref.tool) reasons.push("sanitised");
  const full = `${prefix}${server}${separator}${tool}`;
  if (full.length <= maxLength) return { name: full, reasons };
  reasons.push("truncated");
  // Keep as much of the tool name as fits (it says what the tool does), at least a stub of the server.
  const budget = maxLength - prefix.length - separator.length - hashLength - 1;
  const serverPart = server.slice(0, Math.max(Math.min(server.length, 12), budget - tool.length));
  const toolPart = tool.slice(0, budget - serverPart.length);
  return { name: `${prefix}${serverPart}${separator}${toolPart}_${shortHash(ref, 0)}`, reasons };
}

function withSuffix(name: string, suffix: string, maxLength: number): string {
  const room = maxLength - suffix.length - 1;
  return `${name.slice(0, room)}_${suffix}`;
}

function shortHash(ref: ModelToolRef, attempt: number): string {
  return createHash("sha256").update(`${ref.server}\u0000${ref.tool}\u0000${attempt}`).digest("hex").slice(0, hashLength);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function optionError(name: string, value: string): ThinktankError {
  return new ThinktankError("VALIDATION_FAILED", `modelToolNames: ${name} must be made of [a-zA-Z0-9_-]${name === "separator" ? " and not empty" : ""}; got ${JSON.stringify(value)}`);
}
