import type { PluginHook, PluginHookHandler, PluginManifest, PluginProblem } from "../plugin-types.js";
import { manifestFile, typeName } from "../manifest/read-plugin-manifest.js";
import { jsonComponentFiles } from "./component-paths.js";
import { readJsonFile } from "./read-json-file.js";

/**
 * The plugin's hooks, parsed and listed, never executed: `hooks/hooks.json` when it exists, plus
 * whatever the manifest's `hooks` field adds (paths to hook files, or an inline object). A file
 * named twice is read once. Both `{ "hooks": { <event>: [...] } }` and the bare `{ <event>: [...] }`
 * are accepted; each event holds matcher groups `{ matcher?, hooks: [{ type, ... }] }`.
 */
export function readHooks(root: string, manifest: PluginManifest, problems: PluginProblem[]): PluginHook[] {
  const hooks: PluginHook[] = [];
  const field = manifest.hooks;
  const files = jsonComponentFiles(root, "hooks", field, "hooks/hooks.json", problems);
  for (const file of files) {
    const read = readJsonFile(file.absolute, file.relative);
    if (!read.ok) {
      problems.push(read.problem);
      continue;
    }
    hooks.push(...parseHookObject(read.value, file.relative, problems));
  }
  if (field !== undefined && typeof field === "object" && !Array.isArray(field)) {
    hooks.push(...parseHookObject(field, manifestFile, problems));
  }
  return hooks;
}

function parseHookObject(value: unknown, file: string, problems: PluginProblem[]): PluginHook[] {
  if (!isObject(value)) {
    problems.push({ severity: "error", file, message: `hooks must be a JSON object of events (got ${typeName(value)})` });
    return [];
  }
  const events = isObject(value.hooks) ? value.hooks : value;
  const hooks: PluginHook[] = [];
  for (const [event, groups] of Object.entries(events)) {
    if (event === "description" && typeof groups === "string") continue;
    if (!Array.isArray(groups)) {
      problems.push({ severity: "error", file, message: `hook event '${event}' must be a list of matcher groups (got ${typeName(groups)})` });
      continue;
    }
    groups.forEach((group, index) => {
      const where = `hook event '${event}' group ${index + 1}`;
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        problems.push({ severity: "error", file, message: `${where} must be an object with a 'hooks' list` });
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== "string") {
        problems.push({ severity: "error", file, message: `${where}: 'matcher' must be a string (got ${typeName(group.matcher)})` });
        return;
      }
      const handlers: PluginHookHandler[] = [];
      for (const handler of group.hooks) {
        if (!isObject(handler) || typeof handler.type !== "string") {
          problems.push({ severity: "error", file, message: `${where}: every hook needs a string 'type' (got ${typeName(handler)})` });
          continue;
        }
        handlers.push(handler as PluginHookHandler);
      }
      hooks.push({ event, ...(typeof group.matcher === "string" ? { matcher: group.matcher } : {}), handlers, file });
    });
  }
  return hooks;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
