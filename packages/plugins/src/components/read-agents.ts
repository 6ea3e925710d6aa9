import { readAgentFile } from "@thinktank/subagents";
import type { PluginAgent, PluginManifest, PluginProblem } from "../plugin-types.js";
import { componentLocations, markdownFiles } from "./component-paths.js";

/**
 * The plugin's subagents: `*.md` files in `agents/` (or the manifest's `agents` paths), read with
 * @thinktank/subagents' agent reader (the one implementation: lenient like Claude Code, warnings
 * for departures, an error for a file that cannot be used). The name is the frontmatter `name`,
 * else the file name. A second agent with the same name is a warning and is ignored.
 */
export function readAgents(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginAgent[] {
  const agents: PluginAgent[] = [];
  for (const location of componentLocations(root, "agents", manifest.agents, "agents", problems)) {
    for (const file of markdownFiles(location)) {
      const read = readAgentFile(file.absolute, file.relative, { followLinks: true });
      if (!read.ok) {
        problems.push(read.problem);
        continue;
      }
      problems.push(...read.warnings);
      const { agent } = read;
      if (agents.some((a) => a.name === agent.name)) {
        problems.push({ severity: "warning", file: file.relative, message: `an agent named '${agent.name}' was already read from another file; this one is ignored` });
        continue;
      }
      agents.push({ plugin, ...agent });
    }
  }
  return agents;
}
