/** How one family of names is made unique. */
export interface UniqueNameRule {
  /** The sanitised name for a raw name. */
  readonly sanitize: (raw: string) => string;
  /** Names that must never be used; a clash gets a trailing `_`. */
  readonly reserved?: ReadonlySet<string>;
  /** Joins a name and its collision number: `(name, 2)` → `name2`, `name-2`, `name_2`. */
  readonly suffix: (name: string, number: number) => string;
  /**
   * Compares names case-insensitively when they become file names (two files that differ only in
   * case collide on macOS and Windows file systems).
   * @default false
   */
  readonly caseInsensitive?: boolean;
  /** Names already in use elsewhere (another set's), which a clash skips like a taken one. @default none */
  readonly taken?: Iterable<string>;
}

/**
 * Gives each raw name a unique sanitised name, independent of the input order: a raw name that is
 * already its own sanitised form keeps it, the others follow in code-unit order of their raw names,
 * and a name already taken gets the first free number (`getItem`, `getItem2`, ...).
 */
export function assignUniqueNames(rawNames: readonly string[], rule: UniqueNameRule): Map<string, string> {
  const unique = [...new Set(rawNames)];
  const base = new Map(unique.map((raw) => [raw, avoidReserved(rule.sanitize(raw), rule.reserved)]));
  const canonical = (raw: string): number => (base.get(raw) === raw ? 0 : 1);
  unique.sort((a, b) => canonical(a) - canonical(b) || (a < b ? -1 : a > b ? 1 : 0));

  const key = (name: string): string => (rule.caseInsensitive ? name.toLowerCase() : name);
  const taken = new Set<string>([...(rule.taken ?? [])].map(key));
  const assigned = new Map<string, string>();
  for (const raw of unique) {
    const wanted = base.get(raw) as string;
    let name = wanted;
    for (let number = 2; taken.has(key(name)) || rule.reserved?.has(name); number++) name = rule.suffix(wanted, number);
    taken.add(key(name));
    assigned.set(raw, name);
  }
  return assigned;
}

function avoidReserved(name: string, reserved: ReadonlySet<string> | undefined): string {
  return reserved?.has(name) ? `${name}_` : name;
}
