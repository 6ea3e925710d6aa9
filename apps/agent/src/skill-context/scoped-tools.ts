import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { trackRunWork } from "@thinktank/core";
import { loadManagedTools, type McpManager } from "@thinktank/mcp";
import type { McpToolReference, ScopedScriptTool, ScopedToolReference, ScriptToolReference, ScriptToolRunner } from "@thinktank/skills";

export interface ScopedToolsOptions {
  readonly manager: McpManager;
  /** Runs script tools; without one they are reported unavailable. */
  readonly scriptTools: ScriptToolRunner | undefined;
  readonly threadId: string;
  readonly runId: string;
  /** Whom the run calls MCP servers for (the run's owner): their sessions, sign-ins and own servers. @default the operator */
  readonly user?: string;
  /** Why no script tool of this skill may run at all (hostProgramsDenial: a plugin's skill under `plugins.host_programs: deny`); each is then unavailable with it. @default undefined */
  readonly scriptsDenied?: string;
}

export interface ScopedTools {
  readonly tools: readonly StructuredToolInterface[];
  /** Tools of tools.json that cannot be offered now (server unknown or down, tool missing, no script runner, an untrusted script the sandbox cannot run), with why. */
  readonly unavailable: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * A skill's scoped tools as LangChain tools: MCP references through the shared MCP manager
 * (its session, retries and timeouts; the server's own schema), script tools through the script
 * runner (arguments and output checked by the runner). A tool that cannot be offered is left out
 * with its reason, never breaking the others.
 */
export async function createScopedTools(references: readonly ScopedToolReference[], options: ScopedToolsOptions): Promise<ScopedTools> {
  const tools: StructuredToolInterface[] = [];
  const unavailable: { name: string; reason: string }[] = [];
  const byServer = new Map<string, McpToolReference[]>();
  for (const reference of references) {
    if (reference.kind === "mcp") byServer.set(reference.server, [...(byServer.get(reference.server) ?? []), reference]);
  }
  const loaded = new Map<string, StructuredToolInterface>();
  await Promise.all(
    [...byServer.entries()].map(async ([server, wanted]) => {
      if (!options.manager.serverNames(options.user).includes(server)) {
        for (const reference of wanted) unavailable.push({ name: reference.name, reason: `no MCP server named '${server}' is configured or enabled` });
        return;
      }
      try {
        const names = new Map(wanted.map((reference) => [reference.tool, reference]));
        const serverTools = await loadManagedTools(options.manager, server, { toolName: (_server, mcpName) => names.get(mcpName)?.name ?? `\u0000${mcpName}`, ...(options.user !== undefined ? { user: options.user } : {}) });
        for (const serverTool of serverTools) loaded.set(`${server}\u0000${serverTool.name}`, serverTool);
      } catch (error) {
        for (const reference of wanted) unavailable.push({ name: reference.name, reason: `MCP server '${server}' is unavailable: ${(error as Error).message}` });
      }
    }),
  );
  const scriptAvailability = new Map(
    await Promise.all(references.flatMap((reference) => (reference.kind === "script" && options.scriptTools && options.scriptsDenied === undefined ? [options.scriptTools.availability(withoutKind(reference)).then((available) => [reference.name, available] as const)] : []))),
  );
  for (const reference of references) {
    if (reference.kind === "script") {
      const available = scriptAvailability.get(reference.name);
      if (options.scriptsDenied !== undefined) unavailable.push({ name: reference.name, reason: `TOOL_UNAVAILABLE: ${options.scriptsDenied}` });
      else if (!options.scriptTools) unavailable.push({ name: reference.name, reason: "script tools need the tools runner, which this agent server was started without" });
      // Never offered, never run on the host instead (an untrusted shell script on the deno backend, say).
      else if (available && !available.ok) unavailable.push({ name: reference.name, reason: `TOOL_UNAVAILABLE: ${available.reason}` });
      else tools.push(scriptTool(reference, options.scriptTools, options));
      continue;
    }
    const found = loaded.get(`${reference.server}\u0000${reference.name}`);
    if (found) {
      if (reference.description) found.description = reference.description;
      tools.push(found);
    } else if (!unavailable.some((entry) => entry.name === reference.name)) {
      unavailable.push({ name: reference.name, reason: `MCP server '${reference.server}' has no tool '${reference.tool}'` });
    }
  }
  return { tools, unavailable };
}

function withoutKind(reference: ScriptToolReference): ScopedScriptTool {
  const { kind: _kind, ...definition } = reference;
  return definition;
}

function scriptTool(reference: ScriptToolReference, runner: ScriptToolRunner, options: ScopedToolsOptions): StructuredToolInterface {
  const definition = withoutKind(reference);
  return tool(
    async (args: unknown, config) => {
      const signal = (config as { signal?: AbortSignal } | undefined)?.signal;
      // The run's signal kills the script's process tree; a cancelled run waits for that (and the log record).
      const response = await trackRunWork(config, runner.run(definition, args, { source: "agent", threadId: options.threadId, runId: options.runId, ...(signal ? { signal } : {}) }));
      if (response.status === "error") throw new Error(`${response.error.code}: ${response.error.message}`);
      return JSON.stringify(response.data);
    },
    { name: reference.name, description: reference.description, schema: reference.input_schema as Record<string, unknown> },
  );
}
