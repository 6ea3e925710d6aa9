import type { CliCommand } from "../cli-command.js";
import { skillsCommand } from "./skills.js";
import { pluginsCommand } from "./plugins.js";
import { mcpCommand } from "./mcp.js";
import { startCommand } from "./start.js";
import { gatewayCommand } from "./gateway.js";
import { toolsCommand } from "./tools.js";
import { execCommand } from "./exec.js";
import { inspectCommand } from "./inspect.js";

/** Every top-level command, in the order `thinktank help` lists them. Add new ones here. */
export const commands: readonly CliCommand[] = [skillsCommand, pluginsCommand, mcpCommand, startCommand, gatewayCommand, toolsCommand, execCommand, inspectCommand];
