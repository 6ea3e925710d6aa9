import fs from "node:fs";
import { ThinktankError } from "@thinktank/core";

/** A tool a gold pair accepts. */
export interface ToolRef {
  readonly server: string;
  readonly tool: string;
}

/**
 * One (user request → expected tool) pair. `expected[0]` is the intended tool; further entries are
 * tools that do the same job just as well (the same tool on two servers, a twin API).
 */
export interface GoldPair {
  readonly id: string;
  /** "dev" pairs may be looked at while tuning the ranking; "test" pairs are held out. */
  readonly split: "dev" | "test";
  /** "catalog" for the MCP corpus, "builtin" for the agent's own and registered tools. */
  readonly kind: string;
  readonly query: string;
  readonly expected: readonly ToolRef[];
}

/** Parses a gold set (JSON Lines, one pair a line; blank lines and `//` comments skipped). */
export function parseGoldSet(text: string, source = "gold set"): GoldPair[] {
  const pairs: GoldPair[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    const where = `${source}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new ThinktankError("INVALID_JSON", `${where}: not valid JSON: ${(error as Error).message}`);
    }
    const pair = checkPair(value, where);
    if (ids.has(pair.id)) throw new ThinktankError("VALIDATION_FAILED", `${where}: duplicate id '${pair.id}'`);
    ids.add(pair.id);
    pairs.push(pair);
  });
  return pairs;
}

export function readGoldSet(file: string): GoldPair[] {
  return parseGoldSet(fs.readFileSync(file, "utf8"), file);
}

function checkPair(value: unknown, where: string): GoldPair {
  const fail = (message: string): never => {
    throw new ThinktankError("VALIDATION_FAILED", `${where}: ${message}`);
  };
  if (!value || typeof value !== "object" || Array.isArray(value)) return fail("expected an object");
  const record = value as Record<string, unknown>;
  if (typeof record.id !== "string" || record.id === "") fail("'id' must be a non-empty string");
  if (record.split !== "dev" && record.split !== "test") fail(`'split' must be "dev" or "test"; got ${JSON.stringify(record.split)}`);
  if (typeof record.query !== "string" || record.query.trim() === "") fail("'query' must be a non-empty string");
  if (!Array.isArray(record.expected) || record.expected.length === 0) fail("'expected' must be a non-empty list of {server, tool}");
  const expected = (record.expected as unknown[]).map((entry) => {
    const ref = entry as Record<string, unknown> | null;
    if (!ref || typeof ref.server !== "string" || typeof ref.tool !== "string") return fail("each 'expected' entry needs 'server' and 'tool' strings");
    return { server: ref.server, tool: ref.tool };
  });
  return {
    id: record.id as string,
    split: record.split as "dev" | "test",
    kind: typeof record.kind === "string" ? record.kind : "catalog",
    query: record.query as string,
    expected,
  };
}
