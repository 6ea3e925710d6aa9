import path from "node:path";
import type { PluginAgent, PluginManifest, PluginProblem } from "../plugin-types.js";
import { componentLocations, markdownFiles } from "./component-paths.js";
import { firstLine, text } from "./frontmatter-values.js";
import { splitAllowedTools } from "@thinktank/skills";
import { readMarkdownComponent } from "./read-markdown-component.js";

/**
 * The plugin's subagents: `*.md` files in `agents/` (or the manifest's `agents` paths). Listed with
 * their frontmatter; the name is the frontmatter `name`, else the file name. A second agent with
 * the same name is a warning and is ignored.
 */
export function readAgents(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginAgent[] {
  const agents: PluginAgent[] = [];
  for (const location of componentLocations(root, "agents", manifest.agents, "agents", problems)) {
    for (const file of markdownFiles(location)) {
      const read = readMarkdownComponent(file, problems);
      if (!read) continue;
      const data = read.frontmatter;
      const name = text(data.name)?.trim() || path.basename(file.relative, ".md");
      if (agents.some((a) => a.name === name)) {
        problems.push({ severity: "warning", file: file.relative, message: `an agent named '${name}' was already read from another file; this one is ignored` });
        continue;
      }
      const tools = data.tools === undefined || data.tools === null ? undefined : splitAllowedTools(data.tools);
      const model = text(data.model);
      agents.push({
        plugin,
        name,
        file: file.relative,
        description: text(data.description)?.trim() ?? firstLine(read.body),
        ...(tools ? { tools } : {}),
        ...(model ? { model } : {}),
        frontmatter: data,
      });
    }
  }
  return agents;
}
