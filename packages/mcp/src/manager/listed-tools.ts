import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";

/** Something about one listed tool that was repaired or made it unusable. */
export interface ListedToolProblem {
  /** The tool's name, or `#<index>` in the page when it has none. */
  readonly tool: string;
  readonly problem: string;
  /** True when the tool was left out of the list; false when it was kept after a repair. */
  readonly dropped: boolean;
}

/** Optional fields of a Tool that are left out, rather than losing the tool, when they are malformed. */
const optionalFields = new Set(["title", "description", "annotations", "execution", "icons", "_meta", "outputSchema"]);

/**
 * The tools of one tools/list page, each checked on its own. The SDK's own listTools validates the
 * page as a whole, so one malformed tool (no inputSchema, an inputSchema without `type: "object"`,
 * an outputSchema of another type, a bad annotation) made the whole server unusable. Here a tool is
 * repaired where its meaning is plain (a missing or type-less inputSchema is an object schema; a
 * malformed optional field is left out), and dropped only when it has no name or cannot be
 * repaired; a later tool of the same name is dropped too. Valid tools come out exactly as the SDK's
 * listTools gives them.
 */
export function readListedTools(page: unknown, report: (problem: ListedToolProblem) => void): CatalogTool[] {
  const listed = isRecord(page) && Array.isArray(page.tools) ? (page.tools as unknown[]) : [];
  const tools: CatalogTool[] = [];
  const names = new Set<string>();
  listed.forEach((raw, index) => {
    const label = isRecord(raw) && typeof raw.name === "string" && raw.name !== "" ? raw.name : `#${index}`;
    const tool = readTool(raw, (problem) => report({ tool: label, problem, dropped: false }));
    if (typeof tool === "string") {
      report({ tool: label, problem: tool, dropped: true });
      return;
    }
    if (names.has(tool.name)) {
      report({ tool: label, problem: "another tool of this name is listed before it", dropped: true });
      return;
    }
    names.add(tool.name);
    tools.push(tool);
  });
  return tools;
}

/** The tool as the SDK would parse it, repaired where needed; a string says why it cannot be used. */
function readTool(raw: unknown, repaired: (problem: string) => void): CatalogTool | string {
  if (!isRecord(raw)) return "not an object";
  if (typeof raw.name !== "string" || raw.name === "") return "no name";
  const tool: Record<string, unknown> = { ...raw, inputSchema: inputSchemaOf(raw.inputSchema, repaired) };
  // Each pass leaves out one malformed optional field; there are only so many of them.
  for (let pass = 0; pass <= optionalFields.size; pass++) {
    const parsed = ToolSchema.safeParse(tool);
    if (parsed.success) return parsed.data as CatalogTool;
    const field = parsed.error.issues.map((issue) => String(issue.path[0] ?? "")).find((key) => optionalFields.has(key) && key in tool);
    if (field === undefined) return `malformed: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(tool)"}: ${issue.message}`).join("; ")}`;
    repaired(`its ${field} is malformed and was left out`);
    delete tool[field];
  }
  return "malformed";
}

function inputSchemaOf(schema: unknown, repaired: (problem: string) => void): Record<string, unknown> {
  if (!isRecord(schema)) {
    repaired(schema === undefined ? "it has no inputSchema: any object of arguments is passed on" : "its inputSchema is not an object: any object of arguments is passed on");
    return { type: "object" };
  }
  if (schema.type === "object") return withObjectProperties(schema, repaired);
  if (schema.type === undefined) {
    repaired('its inputSchema has no type: read as type "object"');
    return withObjectProperties({ type: "object", ...schema }, repaired);
  }
  repaired(`its inputSchema has type ${JSON.stringify(schema.type)}, not "object" (arguments are an object): any object of arguments is passed on`);
  return { type: "object" };
}

/** JSON Schema allows `true` and `false` as property schemas; the SDK's Tool type wants objects: `{}` and `{ not: {} }` say the same. */
function withObjectProperties(schema: Record<string, unknown>, repaired: (problem: string) => void): Record<string, unknown> {
  const properties = schema.properties;
  if (!isRecord(properties) || !Object.values(properties).some((value) => typeof value === "boolean")) return schema;
  repaired("its inputSchema has true/false property schemas: read as {} and { not: {} }");
  const objects = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, value === true ? {} : value === false ? { not: {} } : value]));
  return { ...schema, properties: objects };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
