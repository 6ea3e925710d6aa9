/**
 * Which names an assistant lets its runs use (skills, sub-agents, MCP servers): an allow list or a
 * deny list of names or globs. `*` stands for any run of characters (`:` included), `?` for one.
 * An entry with a `:` is matched against the whole identity (`plugin:sales:*`, `public:pdf`);
 * one without is matched against the identity and against its last `:`-separated part, so `pdf`
 * names `public:pdf` and an MCP server (whose names have no category) is named as it is.
 */
export type NameSelection = { readonly allow: readonly string[] } | { readonly deny: readonly string[] };

/** Whether `selection` lets `identity` through (no selection: everything). */
export function selects(selection: NameSelection | undefined, identity: string): boolean {
  if (!selection) return true;
  if ("allow" in selection) return selection.allow.some((entry) => entryMatches(entry, identity));
  return !selection.deny.some((entry) => entryMatches(entry, identity));
}

/** Whether one entry of a selection names `identity` (see NameSelection). */
export function entryMatches(entry: string, identity: string): boolean {
  const pattern = globPattern(entry);
  if (pattern.test(identity)) return true;
  if (entry.includes(":")) return false;
  const bare = identity.slice(identity.lastIndexOf(":") + 1);
  return bare !== identity && pattern.test(bare);
}

/** A predicate for a selection, its globs compiled once (for a run's many checks). */
export function selector(selection: NameSelection | undefined): (identity: string) => boolean {
  if (!selection) return () => true;
  const entries = "allow" in selection ? selection.allow : selection.deny;
  const compiled = entries.map((entry) => ({ pattern: globPattern(entry), bare: !entry.includes(":") }));
  const named = (identity: string): boolean => {
    const bare = identity.slice(identity.lastIndexOf(":") + 1);
    return compiled.some((entry) => entry.pattern.test(identity) || (entry.bare && bare !== identity && entry.pattern.test(bare)));
  };
  return "allow" in selection ? named : (identity) => !named(identity);
}

function globPattern(entry: string): RegExp {
  const source = entry.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "s");
}
