import type { CodeApiServerEntry } from "../names/code-api-index.js";
import { renderPythonPackage } from "../python/render-python-package.js";
import { renderPythonTool } from "../python/render-python-tool.js";
import { renderTypeScriptIndex } from "../typescript/render-typescript-index.js";
import { renderTypeScriptTool } from "../typescript/render-typescript-tool.js";
import type { CodeApiLanguage, CodegenServer, CodegenWarning } from "./codegen-types.js";

/** The files of one server, per language, relative to its folder. */
export interface RenderedServer {
  readonly typescript: Map<string, string>;
  readonly python: Map<string, string>;
  readonly warnings: CodegenWarning[];
}

/** Renders every wrapper of one server in the requested languages. */
export function renderServer(server: CodegenServer, entry: CodeApiServerEntry, languages: readonly CodeApiLanguage[]): RenderedServer {
  const typescript = new Map<string, string>();
  const python = new Map<string, string>();
  const warnings: CodegenWarning[] = [];
  // A server that lists a name twice gets one wrapper, for the first definition (the bridge calls by name).
  const toolsByName = new Map<string, CodegenServer["tools"][number]>();
  const note = (tool: string, messages: readonly string[]): void => {
    for (const message of messages) if (!warnings.some((w) => w.tool === tool && w.message === message)) warnings.push({ server: server.server, tool, message });
  };
  for (const tool of server.tools) {
    if (toolsByName.has(tool.name)) note(tool.name, ["the server lists this tool name more than once: the first definition is used"]);
    else toolsByName.set(tool.name, tool);
  }
  for (const toolEntry of entry.tools) {
    const tool = toolsByName.get(toolEntry.tool);
    if (!tool) continue;
    if (languages.includes("typescript")) {
      const { source, warnings: found } = renderTypeScriptTool(tool, toolEntry);
      typescript.set(toolEntry.file, source);
      note(tool.name, found);
    }
    if (languages.includes("python")) {
      const { source, warnings: found } = renderPythonTool(tool, toolEntry);
      python.set(`${toolEntry.pythonFunctionName}.py`, source);
      note(tool.name, found);
    }
  }
  if (languages.includes("typescript")) typescript.set("index.ts", renderTypeScriptIndex(entry));
  if (languages.includes("python")) python.set("__init__.py", renderPythonPackage(entry));
  return { typescript, python, warnings };
}
