import { isThinktankError } from "@thinktank/core";
import type { CliCommand, CliIo } from "../cli-command.js";
import { runToolsCall } from "./tools-call.js";
import { runToolsSearch } from "./tools-search.js";

/** One `thinktank tools <name>` subcommand. */
export interface ToolsSubcommand {
  readonly usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

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
  const usage = Object.values(subcommands).map((subcommand) => subcommand.usage);
  return {
    name: "tools",
    summary: "Tools: search the tool catalog by what a tool does, call a registered tool",
    usage,
    async run(args, io) {
      const [name, ...rest] = args;
      const subcommand = name ? subcommands[name] : undefined;
      if (!subcommand) {
        const problem = name && name !== "help" && name !== "--help" ? `unknown subcommand '${name}'\n` : "";
        (problem ? io.stderr : io.stdout).write(`${problem}Usage:\n${usage.map((line) => `  thinktank ${line}`).join("\n")}\n`);
        return problem || !name ? 2 : 0;
      }
      try {
        return await subcommand.run(rest, io);
      } catch (error) {
        if (isUsageError(error)) {
          io.stderr.write(`thinktank tools ${name}: ${(error as Error).message}\nUsage: thinktank ${subcommand.usage}\n`);
          return 2;
        }
        throw error;
      }
    },
  };
}

export const toolsCommand: CliCommand = createToolsCommand();

function isUsageError(error: unknown): boolean {
  if (isThinktankError(error)) return error.details?.usage === true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
