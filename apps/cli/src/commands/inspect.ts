import path from "node:path";
import { parseArgs } from "node:util";
import { openPromptInspector, type AgentPromptInspection, type PromptInspection } from "@thinktank/agent";
import { ThinktankError, type CodeExecutionMode } from "@thinktank/core";
import type { SkillListingSetting } from "@thinktank/skills";
import type { CliCommand, CliIo } from "../cli-command.js";
import { runJsonlBatch } from "./jsonl-batch.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";
import { loadCliConfig } from "./cli-config.js";

const modes: readonly CodeExecutionMode[] = ["direct", "code", "auto"];
const listings: readonly SkillListingSetting[] = ["full", "compact", "auto"];

/**
 * `thinktank inspect prompt`: exactly what the agent would send the model on the first call of a
 * new thread (the same runtime and providers as the agent server): the system prompt, every tool
 * definition and what the first user message carries (`--message`), with o200k token counts.
 * `--mode` overrides code_execution.mode, `--listing` skills.listing; `--catalog DIR` takes the MCP
 * tools from a folder of cached tool lists instead of the configured servers; `--user ID` shows a
 * user's run (their skills view and servers) instead of the operator's; `--assistant ID` a run of
 * that assistant (its current version: its instructions, only its skills, commands, sub-agents
 * and MCP servers; run as its owner unless `--user` says otherwise). `--agent NAME` shows what
 * that agent (a name or identity) would run with as a sub-agent of the lead's `task`: its system
 * prompt, the tools it would be bound (and which of its `tools` entries match nothing), its model.
 * `--batch FILE.jsonl` (or `-`) answers one `{"message"}` (or `{"agent"}`) a line with one JSON
 * object a line, in order, in one process.
 */
export const inspectCommand: CliCommand = createSubcommandGroup("inspect", "Inspect what the agent sends the model", {
  prompt: {
    usage: "inspect prompt [--mode direct|code|auto] [--listing full|compact|auto] [--catalog DIR] [--user ID] [--assistant ID] [--message TEXT | --agent NAME | --batch FILE.jsonl] [--json]   the system prompt, tool definitions and message context of a new thread, with token counts; --agent: a sub-agent's prompt, tools and model",
    run: inspectPromptCommand,
  },
});

async function inspectPromptCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { mode: { type: "string" }, listing: { type: "string" }, catalog: { type: "string" }, user: { type: "string" }, assistant: { type: "string" }, message: { type: "string" }, agent: { type: "string" }, batch: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (values.mode !== undefined && !(modes as readonly string[]).includes(values.mode)) throw usageError(`--mode must be one of ${modes.join(", ")}; got '${values.mode}'`);
  if (values.listing !== undefined && !(listings as readonly string[]).includes(values.listing)) throw usageError(`--listing must be one of ${listings.join(", ")}; got '${values.listing}'`);
  if (values.batch !== undefined && values.message !== undefined) throw usageError("give either --message TEXT or --batch FILE, not both");
  if (values.agent !== undefined && (values.message !== undefined || values.batch !== undefined)) throw usageError("--agent shows a sub-agent's request: give it without --message or --batch (a batch line may name an agent)");
  if (values.batch !== undefined && !values.json) throw usageError("--batch prints JSON lines: add --json");
  const config = loadCliConfig(io);
  const inspector = await openPromptInspector(config, {
    ...(values.mode ? { mode: values.mode as CodeExecutionMode } : {}),
    ...(values.listing ? { listing: values.listing as SkillListingSetting } : {}),
    ...(values.catalog !== undefined ? { catalogDir: path.resolve(io.cwd, values.catalog) } : {}),
    ...(values.user !== undefined ? { user: values.user } : {}),
    ...(values.assistant !== undefined ? { assistant: values.assistant } : {}),
  });
  try {
    const batch = values.batch;
    if (batch !== undefined) {
      return await runJsonlBatch(batch, io, "inspect prompt", async (record) => {
        if (typeof record.agent === "string") return agentJson(await inspector.inspectAgent(record.agent));
        if (typeof record.message !== "string") throw new ThinktankError("VALIDATION_FAILED", "'message' (or 'agent') must be a string");
        return toJson(await inspector.inspect(record.message), record.message);
      });
    }
    if (values.agent !== undefined) {
      const inspection = await inspector.inspectAgent(values.agent);
      io.stdout.write(values.json ? `${JSON.stringify(agentJson(inspection), null, 2)}\n` : renderAgentText(inspection));
      return 0;
    }
    const inspection = await inspector.inspect(values.message);
    io.stdout.write(values.json ? `${JSON.stringify(toJson(inspection, values.message), null, 2)}\n` : renderText(inspection));
    return 0;
  } finally {
    await inspector.close();
  }
}

function toJson(inspection: PromptInspection, message: string | undefined) {
  return {
    ...(message !== undefined ? { message } : {}),
    ...(inspection.assistant ? { assistant: inspection.assistant } : {}),
    mode: inspection.mode,
    reason: inspection.reason,
    skill_listing: inspection.skillListing,
    system_prompt: inspection.systemPrompt,
    tools: inspection.tools,
    message_context: inspection.messageContext,
    tokens: {
      system_prompt: inspection.tokens.systemPrompt,
      tools: inspection.tokens.tools,
      message_context: inspection.tokens.messageContext,
      total: inspection.tokens.total,
      by_tool: inspection.tokens.byTool,
    },
  };
}

function agentJson(inspection: AgentPromptInspection) {
  const { agent, model, tokens } = inspection;
  return {
    agent: { identity: agent.identity, name: agent.name, source: agent.source, plugin: agent.plugin ?? null, description: agent.description, tools: agent.tools ?? null, model: agent.model ?? null, file: agent.file ?? null },
    model,
    delegates: inspection.delegates,
    system_prompt: inspection.systemPrompt,
    tools: inspection.tools,
    unmatched_tools: inspection.unmatchedTools,
    tokens: { system_prompt: tokens.systemPrompt, tools: tokens.tools, total: tokens.total, by_tool: tokens.byTool },
  };
}

function renderAgentText(inspection: AgentPromptInspection): string {
  const { agent, model, tokens } = inspection;
  const lines = [
    `=== agent ${agent.identity} (${agent.source}${agent.file ? `: ${agent.file}` : ""}) ===`,
    agent.description,
    `model: ${model.name} (${model.reason})`,
    `tools as written: ${agent.tools ? agent.tools.join(", ") : "(none: the lead's tools)"}`,
    ...(inspection.unmatchedTools.length > 0 ? [`matched nothing: ${inspection.unmatchedTools.join(", ")}`] : []),
    `task of its own: ${inspection.delegates ? "yes" : "no (subagents.max_depth is 1)"}`,
    "",
    `=== system prompt (${tokens.systemPrompt} tokens) ===`,
    inspection.systemPrompt,
    "",
    `=== tools: ${inspection.tools.length} definitions, ${tokens.tools} tokens ===`,
  ];
  for (const definition of inspection.tools) lines.push(`--- ${definition.name} (${tokens.byTool[definition.name] ?? 0} tokens)`, definition.description, JSON.stringify(definition.input_schema));
  lines.push("", `=== total: ${tokens.total} tokens (o200k) ===`);
  return `${lines.join("\n")}\n`;
}

function renderText(inspection: PromptInspection): string {
  const { tokens } = inspection;
  const { assistant } = inspection;
  const lines = [
    ...(assistant ? [`=== assistant ${assistant.name} (${assistant.assistant_id}, version ${assistant.version}${assistant.model ? `, model ${assistant.model}` : ""}) ===`, ""] : []),
    `=== system prompt (${tokens.systemPrompt} tokens) ===`,
    inspection.systemPrompt,
    "",
    `=== tools: ${inspection.tools.length} definitions, ${tokens.tools} tokens (MCP surface: ${inspection.mode}${inspection.reason ? `; ${inspection.reason}` : ""}) ===`,
  ];
  for (const definition of inspection.tools) {
    lines.push(`--- ${definition.name} (${tokens.byTool[definition.name] ?? 0} tokens)`, definition.description, JSON.stringify(definition.input_schema));
  }
  lines.push("", `=== skills and slash commands: ${inspection.skillListing.mode} listing (${inspection.skillListing.reason}) ===`);
  if (inspection.messageContext !== "") lines.push("", `=== added to the message (${tokens.messageContext} tokens) ===`, inspection.messageContext);
  lines.push("", `=== total: ${tokens.total} tokens (o200k) ===`);
  return `${lines.join("\n")}\n`;
}
