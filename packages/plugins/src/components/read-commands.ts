import path from "node:path";
import type { PluginCommand, PluginManifest, PluginProblem } from "../plugin-types.js";
import { componentLocations, markdownFiles } from "./component-paths.js";
import { firstLine, flag, hintText, text } from "./frontmatter-values.js";
import { splitAllowedTools } from "@thinktank/skills";
import { readMarkdownComponent } from "./read-markdown-component.js";

/**
 * The plugin's slash commands: `*.md` files directly in `commands/` (or the manifest's `commands`
 * paths, files or folders). The command name is the file name without `.md`; when two paths give
 * the same name, the first wins and the second is a warning.
 */
export function readCommands(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginCommand[] {
  const commands: PluginCommand[] = [];
  for (const location of componentLocations(root, "commands", manifest.commands, "commands", problems)) {
    for (const file of markdownFiles(location)) {
      const read = readMarkdownComponent(file, problems);
      if (!read) continue;
      const name = path.basename(file.relative, ".md");
      if (commands.some((c) => c.name === name)) {
        problems.push({ severity: "warning", file: file.relative, message: `a command named '${name}' was already read from another file; this one is ignored` });
        continue;
      }
      const data = read.frontmatter;
      const hint = hintText(data["argument-hint"]);
      if (hint.rebuilt) {
        problems.push({ severity: "warning", file: file.relative, message: `argument-hint is not a string in YAML (quote it); shown as ${JSON.stringify(hint.text)}` });
      }
      const allowedTools = data["allowed-tools"] === undefined || data["allowed-tools"] === null ? undefined : splitAllowedTools(data["allowed-tools"]);
      const model = text(data.model);
      commands.push({
        plugin,
        name,
        file: file.relative,
        description: text(data.description) ?? firstLine(read.body),
        ...(hint.text !== undefined ? { argumentHint: hint.text } : {}),
        ...(allowedTools ? { allowedTools } : {}),
        ...(model ? { model } : {}),
        disableModelInvocation: flag(data["disable-model-invocation"], false),
        frontmatter: data,
        body: read.body,
      });
    }
  }
  return commands;
}
