import { z } from "zod";
import { codeLanguages } from "../code-mode-types.js";

/** The settings the three tools' descriptions and limits mention. */
export interface CodeModeToolSettings {
  /** config.code_execution.timeout_seconds */
  readonly defaultTimeoutSeconds: number;
  /** config.code_execution.max_timeout_seconds */
  readonly maxTimeoutSeconds: number;
  /** config.search.default_limit */
  readonly defaultLimit: number;
  /** config.search.max_limit */
  readonly maxLimit: number;
  /** config.sandbox.network.allow: the hosts programs may reach through the sandbox's egress proxy. @default none */
  readonly network?: readonly string[];
}

/** One tool's model-facing definition: name, description and a zod input schema. */
export interface CodeModeToolSpec<Shape extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: "list_servers" | "search_tools" | "execute_code";
  readonly description: string;
  readonly shape: Shape;
}

/**
 * The definitions of list_servers, search_tools and execute_code, shared by the agent's LangChain
 * tools, the /mcp endpoint and the token counts. They never mention servers or tools, so their
 * cost is the same whether 10 or 10,000 tools sit behind them.
 */
export function codeModeToolSpecs(settings: CodeModeToolSettings) {
  const listServers = {
    name: "list_servers",
    description: "List the tool servers you can use from code: name, description, transport, status and tool count. No schemas; find tools with search_tools.",
    shape: {},
  } satisfies CodeModeToolSpec;
  const searchTools = {
    name: "search_tools",
    description:
      "Find tools by what they should do, across every server (or one). Returns the best matches. " +
      'detail "name" (default) or "desc" to browse; "full" adds input/output schemas and the import line for execute_code: use it for the few tools you will call.',
    shape: {
      query: z.string().describe("What the tool should do, in plain words (e.g. 'create a calendar event'). May be empty when server is given: lists that server's tools."),
      server: z.string().optional().describe("Only this server's tools."),
      detail: z.enum(["name", "desc", "full"]).optional().describe('How much to return per tool. Default "name".'),
      limit: z.number().int().min(1).max(settings.maxLimit).optional().describe(`Most results. Default ${settings.defaultLimit}.`),
    },
  } satisfies CodeModeToolSpec;
  const executeCode = {
    name: "execute_code",
    description:
      "Run a short program in a sandbox; returns {exit_code, stdout, stderr, duration_ms, tools_called}. Only what the program prints comes back to you. " +
      'Tools are typed async functions: TypeScript `import { fn } from "servers/<server>"`, Python `from servers.<server> import fn` (search_tools with detail "full" gives the exact line). ' +
      `${networkSentence(settings.network)} Node built-ins or the Python standard library, no packages. Working folder /mnt/user-data/workspace keeps files between runs.`,
    shape: {
      code: z.string().describe("The whole program. Top-level await works in TypeScript and JavaScript."),
      language: z.enum(codeLanguages as unknown as [string, ...string[]]).optional().describe('Default "typescript".'),
      timeout: z.number().positive().optional().describe(`Seconds. Default ${settings.defaultTimeoutSeconds}, at most ${settings.maxTimeoutSeconds}.`),
    },
  } satisfies CodeModeToolSpec;
  return { listServers, searchTools, executeCode };
}

/** What execute_code's description says about the network: none but tools, or the declared hosts through the proxy. */
function networkSentence(network: readonly string[] | undefined): string {
  if (!network || network.length === 0) return "No network except tools;";
  return `No network except tools and these hosts, through the sandbox's proxy (fetch and HTTPS_PROXY-aware clients use it): ${network.join(", ")};`;
}

/** A tool definition as a model API receives it: name, description and JSON Schema of the input. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
}

/** The JSON Schema of a spec's input (without `$schema`, which model APIs do not take). */
export function specDefinition(spec: CodeModeToolSpec): ToolDefinition {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(z.object(spec.shape)) as Record<string, unknown>;
  return { name: spec.name, description: spec.description, input_schema: schema };
}
