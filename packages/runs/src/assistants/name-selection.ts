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
  if (globMatches(entry, identity)) return true;
  if (entry.includes(":")) return false;
  const bare = identity.slice(identity.lastIndexOf(":") + 1);
  return bare !== identity && globMatches(entry, bare);
}

/** A predicate for a selection (for a run's many checks). */
export function selector(selection: NameSelection | undefined): (identity: string) => boolean {
  if (!selection) return () => true;
  const entries = "allow" in selection ? selection.allow : selection.deny;
  const named = (identity: string): boolean => entries.some((entry) => entryMatches(entry, identity));
  return "allow" in selection ? named : (identity) => !named(identity);
}

/**
 * Whether `glob` (`*` any run of characters, `?` one, anything else itself) matches all of `text`.
 * Greedy with one backtrack point (the last `*`), so its time is at most the product of the two
 * lengths whatever the pattern: a regular expression of many `.*` backtracks exponentially on a
 * near miss, and entries come from users.
 */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === text[t]))) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = t;
    } else if (star >= 0) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}
