import { loadConfig, type Config } from "@thinktank/core";
import type { CliIo } from "../cli-command.js";

/**
 * The config a command works with (THINKTANK_CONFIG, ./config.yaml, else the embedded defaults):
 * every command that reads config loads it here, so each deprecation warning (an old key such as
 * `plugins.stdio_servers`) is written to stderr once, whatever the command. The commands that
 * start the services (`start`, `gateway`) leave that to the services' own start-up.
 */
export function loadCliConfig(io: CliIo): Config {
  const config = loadConfig({ env: io.env, cwd: io.cwd });
  for (const line of config.deprecations) io.stderr.write(`thinktank: warning: ${line}\n`);
  return config;
}
