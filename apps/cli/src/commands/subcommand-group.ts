import { isThinktankError, ThinktankError } from "@thinktank/core";
import { asksForHelp, type CliCommand, type CliIo } from "../cli-command.js";

/** A mistake in how a subcommand was called: its group prints the message and the usage, exit code 2. */
export function usageError(message: string): ThinktankError {
  return new ThinktankError("BAD_REQUEST", message, { details: { usage: true } });
}

/** One `thinktank <group> <name>` subcommand. */
export interface Subcommand {
  readonly usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/**
 * A command made of subcommands (`thinktank mcp list`, `thinktank tools search`): prints the usage
 * for `help` or no name, exit 2 for an unknown one, and turns a usage error (a ThinktankError with
 * details.usage, or node:util parseArgs' ERR_PARSE_ARGS_*) into its message plus usage, exit 2;
 * `--help` or `-h` after a subcommand prints its usage, exit 0.
 */
export function createSubcommandGroup(name: string, summary: string, subcommands: Readonly<Record<string, Subcommand>>): CliCommand {
  const usage = Object.values(subcommands).map((subcommand) => subcommand.usage);
  return {
    name,
    summary,
    usage,
    group: true,
    async run(args, io) {
      const [subcommandName, ...rest] = args;
      const subcommand = subcommandName ? subcommands[subcommandName] : undefined;
      if (!subcommand) {
        const problem = subcommandName && subcommandName !== "help" && subcommandName !== "--help" ? `unknown subcommand '${subcommandName}'\n` : "";
        (problem ? io.stderr : io.stdout).write(`${problem}Usage:\n${usage.map((line) => `  thinktank ${line}`).join("\n")}\n`);
        return problem || !subcommandName ? 2 : 0;
      }
      if (asksForHelp(rest)) {
        io.stdout.write(`Usage: thinktank ${subcommand.usage}\n`);
        return 0;
      }
      try {
        return await subcommand.run(rest, io);
      } catch (error) {
        if (isUsageError(error)) {
          io.stderr.write(`thinktank ${name} ${subcommandName}: ${(error as Error).message}\nUsage: thinktank ${subcommand.usage}\n`);
          return 2;
        }
        throw error;
      }
    },
  };
}

function isUsageError(error: unknown): boolean {
  if (isThinktankError(error)) return error.details?.usage === true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
