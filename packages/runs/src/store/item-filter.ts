import { isDeepStrictEqual } from "node:util";
import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";

const operators = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]);
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const isOperatorObject = (value: unknown): value is JsonObject => isObject(value) && Object.keys(value).some((key) => key.startsWith("$"));

/**
 * Checks a search filter before any item is read: an object whose keys start with "$" holds only
 * known operators, `$in` / `$nin` take an array and `$exists` a boolean. VALIDATION_FAILED otherwise.
 */
export function checkItemFilter(filter: JsonObject): void {
  for (const [field, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) continue;
    for (const [operator, operand] of Object.entries(condition)) {
      const where = `filter.${field}.${operator}`;
      if (!operators.has(operator)) throw invalid(where, `unknown operator ${JSON.stringify(operator)} (known: ${[...operators].join(", ")})`);
      if ((operator === "$in" || operator === "$nin") && !Array.isArray(operand)) throw invalid(where, "expects an array");
      if (operator === "$exists" && typeof operand !== "boolean") throw invalid(where, "expects true or false");
    }
  }
}

/**
 * True when every field of `filter` matches the same top-level field of `value`: a plain value
 * equals it (JSON-deep, key order aside); an operator object meets each operator: `$eq` / `$ne`
 * (deep), `$gt` `$gte` `$lt` `$lte` (two numbers, or two strings such as ISO dates), `$in` /
 * `$nin` (deep membership), `$exists`.
 */
export function matchesItemFilter(value: JsonObject, filter: JsonObject | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, condition]) => {
    const actual = value[field];
    if (!isOperatorObject(condition)) return actual !== undefined && isDeepStrictEqual(actual, condition);
    return Object.entries(condition).every(([operator, operand]) => meets(actual, operator, operand));
  });
}

function meets(actual: unknown, operator: string, operand: unknown): boolean {
  switch (operator) {
    case "$eq":
      return actual !== undefined && isDeepStrictEqual(actual, operand);
    case "$ne":
      return actual === undefined || !isDeepStrictEqual(actual, operand);
    case "$in":
      return actual !== undefined && (operand as unknown[]).some((candidate) => isDeepStrictEqual(actual, candidate));
    case "$nin":
      return actual === undefined || !(operand as unknown[]).some((candidate) => isDeepStrictEqual(actual, candidate));
    case "$exists":
      return (actual !== undefined) === operand;
    default:
      return compares(actual, operator, operand);
  }
}

function compares(actual: unknown, operator: string, operand: unknown): boolean {
  const comparable = (typeof actual === "number" && typeof operand === "number") || (typeof actual === "string" && typeof operand === "string");
  if (!comparable) return false;
  const [a, b] = [actual as number | string, operand as number | string];
  if (operator === "$gt") return a > b;
  if (operator === "$gte") return a >= b;
  if (operator === "$lt") return a < b;
  return a <= b;
}

/**
 * The store has no embedding index, so `query` is a text match: every whitespace-separated term
 * occurs, case aside, in one of the value's strings, numbers or booleans (keys not counted).
 */
export function matchesItemQuery(value: JsonObject, query: string | undefined): boolean {
  const terms = query?.toLowerCase().split(/\s+/).filter(Boolean) ?? [];
  if (terms.length === 0) return true;
  const text = leaves(value).join("\n").toLowerCase();
  return terms.every((term) => text.includes(term));
}

/** Iterative, so a deeply nested value cannot exhaust the stack. */
function leaves(root: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") found.push(String(value));
    else if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (isObject(value)) for (const item of Object.values(value)) stack.push(item);
  }
  return found;
}

function invalid(where: string, problem: string): ThinktankError {
  return new ThinktankError("VALIDATION_FAILED", `${where}: ${problem}`, { details: { field: where } });
}
