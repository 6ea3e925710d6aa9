import { asksForHelp, type CliCommand, type CliIo } from "./cli-command.js";
import { commands as defaultCommands } from "./commands/index.js";

/** Runs one command line and returns its exit code; never calls process.exit, so tests can drive it. */
export async function runCli(argv: string[], io: CliIo, commands: readonly CliCommand[] = defaultCommands): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(helpText(commands));
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`thinktank: unknown command '${name}'\n\n${helpText(commands)}`);
    return 2;
  }
  // A command of its own (exec, start, gateway) answers --help with its usage; groups answer for their subcommands.
  if (!command.group && asksForHelp(rest)) {
    io.stdout.write(`Usage:\n${command.usage.map((line) => `  thinktank ${line}`).join("\n")}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // Loaded here, not up front: `thinktank --help` needs nothing from @thinktank/core.
    const { isThinktankError } = await import("@thinktank/core");
    if (isThinktankError(error)) {
      io.stderr.write(`thinktank ${name}: ${error.code}: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`thinktank ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

function helpText(commands: readonly CliCommand[]): string {
  const lines = ["Usage: thinktank <command> [options]", ""];
  for (const command of commands) {
    lines.push(`  ${command.name.padEnd(10)} ${command.summary}`);
    for (const usage of command.usage) lines.push(`      ${usage}`);
  }
  return `${lines.join("\n")}\n`;
}
