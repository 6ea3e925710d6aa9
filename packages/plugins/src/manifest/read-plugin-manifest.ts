import fs from "node:fs";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { escapeHiddenCharacters } from "@thinktank/core";
import type { PluginManifest, PluginProblem } from "../plugin-types.js";
import { readJsonFile } from "../components/read-json-file.js";
import { manifestFieldExpectations, pluginManifestSchema } from "./plugin-manifest-schema.js";
import { isValidPluginName, pluginNameRule } from "./plugin-name.js";

export const manifestFile = ".claude-plugin/plugin.json";

export interface ManifestReading {
  readonly manifest: PluginManifest;
  readonly source: "file" | "folder";
  readonly problems: readonly PluginProblem[];
}

// Compiled on the first manifest read, not at import: ~30 ms of each server's start-up otherwise.
const compileManifestValidator = () => new Ajv({ allErrors: true, strict: true }).compile(pluginManifestSchema);
let compiled: ReturnType<typeof compileManifestValidator> | undefined;

/**
 * Reads `.claude-plugin/plugin.json`. Without one, the plugin is named after `fallbackName`
 * (its folder), as Claude Code does. Every problem is collected (never thrown): an unreadable or
 * invalid manifest yields errors and `{ name: fallbackName }` so the rest can still be checked.
 */
export function readPluginManifest(root: string, fallbackName: string = path.basename(root)): ManifestReading {
  const file = path.join(root, manifestFile);
  if (!fs.existsSync(file)) {
    const problems: PluginProblem[] = isValidPluginName(fallbackName)
      ? []
      : [{ severity: "error", file: ".", message: `the plugin has no ${manifestFile} and its folder name '${escapeHiddenCharacters(fallbackName)}' is not a valid plugin name: ${pluginNameRule()}` }];
    return { manifest: { name: fallbackName }, source: "folder", problems };
  }
  const read = readJsonFile(file, manifestFile);
  if (!read.ok) return { manifest: { name: fallbackName }, source: "file", problems: [read.problem] };
  const validateManifest = (compiled ??= compileManifestValidator());
  if (!validateManifest(read.value)) {
    const problems = describeErrors(validateManifest.errors ?? [], read.value);
    const name = isObject(read.value) && typeof read.value.name === "string" ? read.value.name : fallbackName;
    return { manifest: { name }, source: "file", problems };
  }
  return { manifest: read.value as PluginManifest, source: "file", problems: [] };
}

function describeErrors(errors: readonly ErrorObject[], value: unknown): PluginProblem[] {
  const messages = new Set<string>();
  for (const error of errors) {
    const field = error.instancePath.split("/")[1];
    if (error.keyword === "required") {
      messages.add(`'${String(error.params.missingProperty)}' is required`);
    } else if (error.instancePath === "") {
      messages.add(`the manifest must be a JSON object (got ${typeName(value)})`);
    } else if (field && manifestFieldExpectations[field] && error.instancePath.split("/").length <= 3) {
      const got = isObject(value) ? value[field] : undefined;
      messages.add(`'${field}' must be ${manifestFieldExpectations[field]} (got ${typeName(got)})`);
    } else {
      messages.add(`'${error.instancePath.slice(1).replaceAll("/", ".")}' ${error.message ?? "is invalid"}`);
    }
  }
  return [...messages].map((message) => ({ severity: "error", file: manifestFile, message }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  const shown = escapeHiddenCharacters(JSON.stringify(value));
  return `${typeof value} ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}`;
}
