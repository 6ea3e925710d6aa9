import fs from "node:fs";
import { jsonNestingLimits, jsonTextNesting } from "@thinktank/core";
import type { PluginProblem } from "../plugin-types.js";

export type JsonReading = { ok: true; value: unknown } | { ok: false; problem: PluginProblem };

/**
 * Reads a JSON file of a plugin (a byte-order mark is allowed, a missing final newline too).
 * A parse error becomes an error problem naming the file and, when JSON.parse says it, the line.
 * A file nested deeper than jsonNestingLimits.document is an error problem too, before parsing:
 * every later walk (masking, merging, the agent's snapshot) would overflow the stack on it.
 */
export function readJsonFile(file: string, shownAs: string): JsonReading {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    return { ok: false, problem: { severity: "error", file: shownAs, message: `cannot be read: ${(error as Error).message}` } };
  }
  const limit = jsonNestingLimits.document;
  if (jsonTextNesting(text, limit) > limit) return { ok: false, problem: { severity: "error", file: shownAs, message: `nests deeper than ${limit} levels` } };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const line = position ? text.slice(0, Number(position[1])).split("\n").length : undefined;
    return {
      ok: false,
      problem: { severity: "error", file: shownAs, message: `is not valid JSON: ${message}`, ...(line ? { line } : {}) },
    };
  }
}
