import type { CliCommand } from "../cli-command.js";
import { createSubcommandGroup, type Subcommand } from "./subcommand-group.js";
import { runToolsCall } from "./tools-call.js";
import { runToolsSearch } from "./tools-search.js";

/** One `thinktank tools <name>` subcommand. */
export type ToolsSubcommand = Subcommand;

/** The subcommands of `thinktank tools`; add one with a line here. */
export const toolsSubcommands: Readonly<Record<string, ToolsSubcommand>> = {
  search: {
    usage: "tools search QUERY [--server S] [--detail name|desc|full] [--limit K] [--catalog DIR] [--batch FILE.jsonl] [--json]",
    run: runToolsSearch,
  },
  call: { usage: "tools call NAME --args '<json>' [--json]", run: runToolsCall },
};

/** `thinktank tools`: find tools by what they do, and call registered tools. */
export function createToolsCommand(subcommands: Readonly<Record<string, ToolsSubcommand>> = toolsSubcommands): CliCommand {
  return createSubcommandGroup("tools", "Tools: search the tool catalog by what a tool does, call a registered tool", subcommands);
}

export const toolsCommand: CliCommand = createToolsCommand();
