/** Bounds on one frontmatter block, so that any file parses in bounded time and memory. */
export interface FrontmatterLimits {
  /** UTF-8 bytes between the '---' lines. */
  readonly maxBytes: number;
  /** Alias uses (`*name`) in the block. */
  readonly maxAliases: number;
  /** Nested lists and maps, the top-level map included, after aliases are expanded. */
  readonly maxDepth: number;
  /** Values (maps, lists, scalars) in the tree once every alias is expanded. */
  readonly maxNodes: number;
  /** Characters of keys and strings in the tree once every alias is expanded. */
  readonly maxTextLength: number;
}

/**
 * Real frontmatter is a few KB with a few dozen values, two levels deep and no aliases; these
 * bounds leave more than ten times that room. The expanded bounds matter most: js-yaml shares
 * an aliased value instead of copying it, so a small block can stand for a tree of billions of
 * values that every later walk (validation, JSON, copies) would pay for in full.
 */
export const frontmatterLimits: FrontmatterLimits = Object.freeze({
  maxBytes: 64 * 1024,
  maxAliases: 100,
  maxDepth: 20,
  maxNodes: 10_000,
  maxTextLength: 256 * 1024,
});

/**
 * Walks the parsed data as consumers will see it, aliases expanded, and says which bound it
 * passes first; undefined when it stays within all. The walk stops at the first excess, so it
 * visits at most maxNodes values and recurses at most maxDepth levels (a self-referencing
 * alias, which js-yaml builds as a cycle, ends there too).
 */
export function findFrontmatterExcess(data: unknown, limits: FrontmatterLimits = frontmatterLimits): string | undefined {
  let nodes = 0;
  let text = 0;
  const visit = (value: unknown, depth: number): string | undefined => {
    nodes += 1;
    if (nodes > limits.maxNodes) return `it expands to more than ${limits.maxNodes} values (each use of an alias counts its whole value)`;
    if (typeof value === "string") text += value.length;
    // Keys were added by the caller just before this visit, so every addition is checked here.
    if (text > limits.maxTextLength) return `it expands to more than ${limits.maxTextLength} characters of text (each use of an alias counts its whole value)`;
    if (value === null || typeof value !== "object") return undefined;
    if (depth > limits.maxDepth) return `it nests more than ${limits.maxDepth} levels deep (or an alias refers to itself)`;
    if (Array.isArray(value)) {
      for (const item of value) {
        const excess = visit(item, depth + 1);
        if (excess) return excess;
      }
      return undefined;
    }
    for (const key of Object.keys(value)) {
      text += key.length;
      const excess = visit((value as Record<string, unknown>)[key], depth + 1);
      if (excess) return excess;
    }
    return undefined;
  };
  return visit(data, 1);
}

