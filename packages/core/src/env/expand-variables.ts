/**
 * `${VAR}`, `${VAR:-default}` and `$VAR` expansion for MCP server configs and plugin
 * manifests. Runs in memory at load or connect time only: the store keeps placeholders
 * as written, so a resolved secret is never written to disk.
 */
export interface ExpansionResult<T> {
  readonly value: T;
  /** Variables referenced without a default and not set (each listed once, in order of appearance). */
  readonly missing: readonly string[];
}

const pattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export function expandString(text: string, variables: Readonly<Record<string, string | undefined>>): ExpansionResult<string> {
  const missing: string[] = [];
  const value = text.replace(pattern, (whole, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? "";
    const current = variables[name];
    if (current !== undefined && current !== "") return current;
    if (fallback !== undefined) return fallback;
    if (current === "") return "";
    if (!missing.includes(name)) missing.push(name);
    return whole;
  });
  return { value, missing };
}

/** Expands every string inside a JSON-like value (objects, arrays); keys are left alone. */
export function expandDeep<T>(value: T, variables: Readonly<Record<string, string | undefined>>): ExpansionResult<T> {
  const missing = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      const result = expandString(node, variables);
      for (const name of result.missing) missing.add(name);
      return result.value;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    }
    return node;
  };
  const expanded = walk(value) as T;
  return { value: expanded, missing: [...missing] };
}

/** The names a string references, for reporting what a config needs. */
export function referencedVariables(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const name = match[1] ?? match[3];
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}
