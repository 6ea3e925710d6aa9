/** A small Python type tree, printed as annotations that also evaluate at run time (Python 3.11+). */
export type PythonType =
  | { readonly kind: "any" }
  | { readonly kind: "name"; readonly text: string }
  | { readonly kind: "class"; readonly name: string }
  | { readonly kind: "literal"; readonly values: readonly string[] }
  | { readonly kind: "list"; readonly element: PythonType }
  | { readonly kind: "dict"; readonly value: PythonType }
  | { readonly kind: "tuple"; readonly elements: readonly PythonType[] }
  | { readonly kind: "union"; readonly members: readonly PythonType[] };

export const anyType: PythonType = { kind: "any" };
export const pythonName = (text: "str" | "int" | "float" | "bool" | "None"): PythonType => ({ kind: "name", text });

/** A union, flattened, deduplicated, literals merged; `Any` absorbs everything. */
export function pythonUnion(members: readonly PythonType[]): PythonType {
  const flat = members.flatMap((m) => (m.kind === "union" ? m.members : [m]));
  if (flat.length === 0 || flat.some((m) => m.kind === "any")) return anyType;
  const literals = [...new Set(flat.flatMap((m) => (m.kind === "literal" ? m.values : [])))];
  const others: PythonType[] = [];
  const seen = new Set<string>();
  for (const member of flat) {
    if (member.kind === "literal") continue;
    // Names and classes are compared by text; structured members are kept (printing them costs more than it saves).
    const key = member.kind === "name" ? member.text : member.kind === "class" ? `"${member.name}` : undefined;
    if (key !== undefined && seen.has(key)) continue;
    if (key !== undefined) seen.add(key);
    others.push(member);
  }
  const all = literals.length > 0 ? [{ kind: "literal", values: literals } as const, ...others] : others;
  return all.length === 1 ? (all[0] as PythonType) : { kind: "union", members: all };
}

/**
 * Prints an annotation. Classes are quoted forward references and unions use `Union[...]` and
 * `Optional[...]` (never `|`, which fails at run time on a quoted name), so a module's classes
 * can refer to each other in any order.
 */
export function printPythonType(type: PythonType): string {
  switch (type.kind) {
    case "any":
      return "Any";
    case "name":
      return type.text;
    case "class":
      return JSON.stringify(type.name);
    case "literal":
      return `Literal[${type.values.join(", ")}]`;
    case "list":
      return `list[${printPythonType(type.element)}]`;
    case "dict":
      return `dict[str, ${printPythonType(type.value)}]`;
    case "tuple":
      return type.elements.length === 0 ? "tuple[()]" : `tuple[${type.elements.map(printPythonType).join(", ")}]`;
    case "union": {
      const none = type.members.filter((m) => m.kind === "name" && m.text === "None");
      const rest = type.members.filter((m) => !(m.kind === "name" && m.text === "None"));
      if (none.length > 0 && rest.length === 1) return `Optional[${printPythonType(rest[0] as PythonType)}]`;
      return `Union[${type.members.map(printPythonType).join(", ")}]`;
    }
  }
}
