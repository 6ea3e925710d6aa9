import path from "node:path";
import { parseArgs } from "node:util";
import { inspectPrompt, type PromptInspection } from "@thinktank/agent";
import { loadConfig, type CodeExecutionMode } from "@thinktank/core";
import type { CliCommand, CliIo } from "../cli-command.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";

const modes: readonly CodeExecutionMode[] = ["direct", "code", "auto"];

/**
 * `thinktank inspect prompt`: exactly what the agent would send the model on the first call of a
 * new thread (the same runtime and providers as the agent server): the system prompt and every
 * tool definition, with o200k token counts. `--mode` overrides code_execution.mode; `--catalog DIR`
 * takes the MCP tools from a folder of cached tool lists instead of the configured servers.
 */
export const inspectCommand: CliCommand = createSubcommandGroup("inspect", "Inspect what the agent sends the model", {
  prompt: {
    usage: "inspect prompt [--mode direct|code|auto] [--catalog DIR] [--json]   the system prompt and tool definitions of a new thread, with token counts",
    run: inspectPromptCommand,
  },
});

async function inspectPromptCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { mode: { type: "string" }, catalog: { type: "string" }, json: { type: "boolean", default: false } } });
  if (values.mode !== undefined && !(modes as readonly string[]).includes(values.mode)) throw usageError(`--mode must be one of ${modes.join(", ")}; got '${values.mode}'`);
  const config = loadConfig({ env: io.env, cwd: io.cwd });
  const inspection = await inspectPrompt(config, {
    ...(values.mode ? { mode: values.mode as CodeExecutionMode } : {}),
    ...(values.catalog !== undefined ? { catalogDir: path.resolve(io.cwd, values.catalog) } : {}),
  });
  io.stdout.write(values.json ? `${JSON.stringify(toJson(inspection), null, 2)}\n` : renderText(inspection));
  return 0;
}

function toJson(inspection: PromptInspection) {
  return {
    mode: inspection.mode,
    reason: inspection.reason,
    system_prompt: inspection.systemPrompt,
    tools: inspection.tools,
    tokens: { system_prompt: inspection.tokens.systemPrompt, tools: inspection.tokens.tools, total: inspection.tokens.total, by_tool: inspection.tokens.byTool },
  };
}

function renderText(inspection: PromptInspection): string {
  const { tokens } = inspection;
  const lines = [
    `=== system prompt (${tokens.systemPrompt} tokens) ===`,
    inspection.systemPrompt,
    "",
    `=== tools: ${inspection.tools.length} definitions, ${tokens.tools} tokens (MCP surface: ${inspection.mode}${inspection.reason ? `; ${inspection.reason}` : ""}) ===`,
  ];
  for (const definition of inspection.tools) {
    lines.push(`--- ${definition.name} (${tokens.byTool[definition.name] ?? 0} tokens)`, definition.description, JSON.stringify(definition.input_schema));
  }
  lines.push("", `=== total: ${tokens.total} tokens (o200k) ===`);
  return `${lines.join("\n")}\n`;
}
