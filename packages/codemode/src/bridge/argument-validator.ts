import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { CatalogTool } from "@thinktank/mcp";

/** What checking a call's arguments found. */
export type ArgumentCheck = { readonly ok: true } | { readonly ok: false; readonly problems: readonly string[] };

export interface ArgumentValidatorOptions {
  /** Called once per tool whose inputSchema cannot be compiled (the call then goes through unchecked: the server decides). */
  readonly onSchemaProblem?: (tool: CatalogTool, reason: string) => void;
  /** Most problems reported for one call. @default 10 */
  readonly maxProblems?: number;
}

const draft2020 = /json-schema\.org\/draft\/2020-12\/schema/;

/**
 * Validates tool arguments against the tool's inputSchema before any call reaches a server.
 * Compiled validators are cached per tool object: a tool list that changes brings new objects,
 * so a stale validator is never used and the old ones are garbage collected with their list.
 * Schemas come from untrusted servers: remote `$ref`s are never fetched, unknown keywords and
 * formats are tolerated, and a schema that cannot be compiled lets the call through unchecked.
 */
export class ArgumentValidator {
  private readonly cache = new WeakMap<CatalogTool, ValidateFunction | null>();
  private readonly draft07: Ajv;
  private readonly draft2020: Ajv2020;
  private readonly maxProblems: number;

  constructor(private readonly options: ArgumentValidatorOptions = {}) {
    const common = { allErrors: true, strict: false, validateFormats: false, validateSchema: false, logger: false } as const;
    this.draft07 = new Ajv(common);
    this.draft2020 = new Ajv2020(common);
    this.maxProblems = options.maxProblems ?? 10;
  }

  check(tool: CatalogTool, args: Record<string, unknown>): ArgumentCheck {
    const validate = this.compiled(tool);
    if (!validate || validate(args)) return { ok: true };
    const problems = (validate.errors ?? []).slice(0, this.maxProblems).map(describeError);
    return { ok: false, problems: problems.length > 0 ? problems : ["the arguments do not match the tool's inputSchema"] };
  }

  private compiled(tool: CatalogTool): ValidateFunction | null {
    const cached = this.cache.get(tool);
    if (cached !== undefined) return cached;
    let validate: ValidateFunction | null = null;
    try {
      const schema = defaultedPropertiesOptional(tool.inputSchema) as Record<string, unknown>;
      const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
      // The dialect is chosen here; ajv would otherwise look the meta-schema up by its URL.
      delete schema.$schema;
      delete schema.$id;
      const ajv = draft2020.test(dialect) ? this.draft2020 : this.draft07;
      validate = ajv.compile(schema);
      // The validator keeps working; ajv's own cache would otherwise grow with every new tool list.
      ajv.removeSchema(schema);
    } catch (error) {
      this.options.onSchemaProblem?.(tool, (error as Error).message);
    }
    this.cache.set(tool, validate);
    return validate;
  }
}

/** Keywords whose values are data, not subschemas. */
const dataKeywords = new Set(["default", "const", "enum", "examples"]);

/**
 * The schema with every property that declares a `default` taken out of its object's `required`.
 * Schemas made from validation libraries with defaults (zod's `.default()` in its output mode, as
 * @playwright/mcp lists `scale`) call such a property required though the server fills it in when
 * it is missing; refusing the call would refuse what the server accepts. A copy: the tool's own
 * schema (shared catalog data) is never changed.
 */
function defaultedPropertiesOptional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(defaultedPropertiesOptional);
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = dataKeywords.has(key) ? value : defaultedPropertiesOptional(value);
  const properties = copy.properties;
  if (Array.isArray(copy.required) && properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
    const declared = properties as Record<string, unknown>;
    copy.required = copy.required.filter((name) => {
      const property = typeof name === "string" && Object.hasOwn(declared, name) ? declared[name] : undefined;
      return !(property !== null && typeof property === "object" && "default" in property);
    });
  }
  return copy;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === "" ? "arguments" : `arguments${error.instancePath}`;
  switch (error.keyword) {
    case "required":
      return `${where}: missing required property '${String(error.params.missingProperty)}'`;
    case "additionalProperties":
      return `${where}: unknown property '${String(error.params.additionalProperty)}'`;
    case "enum":
      return `${where}: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${where}: ${error.message ?? error.keyword}`;
  }
}
