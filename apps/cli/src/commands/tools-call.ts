import { parseArgs } from "node:util";
import { createToolsService } from "@thinktank/tools";
import type { ToolResponse } from "@thinktank/tools";
import type { CliIo } from "../cli-command.js";
import { usageError } from "./subcommand-group.js";
import { parseArgumentsOption } from "./parse-arguments-option.js";
import { loadCliConfig } from "./cli-config.js";

/**
 * `thinktank tools call NAME --args '<json>' [--json]`: calls a registered tool (or the web_search
 * built-in) in this process, exactly as the agent would: arguments checked, the script run with
 * its timeout, the call recorded in the execution log. Prints the data (`--json`: the whole
 * ToolResponse); an error answer goes to stderr (`--json`: stdout) with exit code 1.
 */
export async function runToolsCall(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { args: { type: "string" }, json: { type: "boolean", default: false } } });
  if (positionals.length !== 1) throw usageError(`expected one tool NAME, got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  const name = positionals[0] as string;
  const toolArguments = parseArgumentsOption(values.args, { usage: true });
  const config = loadCliConfig(io);
  const tools = createToolsService(config, { onLogError: (error) => io.stderr.write(`thinktank tools call: the execution log could not be written: ${(error as Error).message}\n`) });
  const view = await tools.registry.view();
  for (const problem of view.problems) io.stderr.write(`thinktank tools call: warning: ${config.extensions_config}: ${problem.path}: ${problem.message} (entry left out)\n`);
  // Ctrl-C stops the script's whole process tree (the call answers CANCELLED) instead of leaving it running.
  const controller = new AbortController();
  const cancel = (): void => controller.abort();
  process.once("SIGINT", cancel);
  process.once("SIGTERM", cancel);
  let response: ToolResponse;
  try {
    const options = { source: "cli", signal: controller.signal };
    response = name === tools.webSearch.name && !view.tools.has(name) ? await tools.webSearch.search(toolArguments, options) : await tools.executor.invoke(name, toolArguments, options);
  } finally {
    process.off("SIGINT", cancel);
    process.off("SIGTERM", cancel);
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  } else if (response.status === "success") {
    io.stdout.write(typeof response.data === "string" ? `${response.data}\n` : `${JSON.stringify(response.data, null, 2)}\n`);
  } else {
    const details = response.error.details;
    const tail = typeof details?.stderr_tail === "string" ? `\n--- stderr (end) ---\n${details.stderr_tail.trimEnd()}` : "";
    io.stderr.write(`${name} failed: ${response.error.code}: ${response.error.message}${tail}\n`);
  }
  return response.status === "success" ? 0 : 1;
}
