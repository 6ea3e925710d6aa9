import type { SchemaCompiler } from "./schema-compiler.js";
import type { ToolProblem } from "./tool-definition.js";
import { createToolBodySchema, createToolDefinitionFieldSchema, registryToolEntrySchema, updateToolBodySchema, updateToolDefinitionFieldSchema } from "./tool-entry-schema.js";
import { checkToolName } from "./tool-names.js";

/** Which shape a definition arrives in. */
export type DefinitionShape = "create" | "create-field" | "update" | "update-field" | "entry";

const shapeSchemas = {
  create: createToolBodySchema,
  "create-field": createToolDefinitionFieldSchema,
  update: updateToolBodySchema,
  "update-field": updateToolDefinitionFieldSchema,
  entry: registryToolEntrySchema,
} as const;

/**
 * Every problem with a tool definition: its shape (unknown keys included), its name (for a new
 * tool), and whether its input and output schemas compile. Paths start at `base` (`""` for a
 * request body, `tools.<name>` for a registry entry).
 */
export function checkDefinition(compiler: SchemaCompiler, value: unknown, shape: DefinitionShape, options: { base?: string; reservedNames?: readonly string[] } = {}): ToolProblem[] {
  const base = options.base ?? "";
  const prefix = (path: string): string => (base === "" ? path : path === "" ? base : `${base}.${path}`);
  const problems = compiler.validate(shapeSchemas[shape], value, "").map((problem) => ({ ...problem, path: prefix(problem.path) || "(body)" }));
  if (value === null || typeof value !== "object" || Array.isArray(value)) return problems;
  const record = value as Record<string, unknown>;
  if ((shape === "create" || shape === "create-field") && !problems.some((p) => p.path === prefix("name"))) {
    problems.push(...checkToolName(record.name, options.reservedNames).map((problem) => ({ ...problem, path: prefix(problem.path) })));
  }
  for (const field of ["input_schema", "output_schema"] as const) {
    const schema = record[field];
    if (schema === undefined || problems.some((p) => p.path === prefix(field) || p.path.startsWith(`${prefix(field)}.`))) continue;
    problems.push(...compiler.check(schema, prefix(field)));
  }
  return problems;
}
