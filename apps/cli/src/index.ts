// Public API of @thinktank/cli: every export is listed here by name.
export { runCli } from "./run-cli.js";
export type { CliCommand, CliIo } from "./cli-command.js";
