import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import type { CodeApiLanguage, CodegenServer } from "./codegen-types.js";

const knownLanguages: readonly CodeApiLanguage[] = ["typescript", "python"];

/**
 * Checks the options before anything is written, saying what was expected and what came:
 * a folder, known languages, unique server names, tools with a name and an inputSchema object.
 */
export function validateGenerateOptions(options: { readonly outDir: string; readonly languages?: readonly CodeApiLanguage[]; readonly servers: readonly CodegenServer[] }): { outDir: string; languages: readonly CodeApiLanguage[] } {
  if (typeof options.outDir !== "string" || options.outDir.trim() === "") {
    throw new ThinktankError("VALIDATION_FAILED", `generateCodeApi: outDir must be a folder path, got ${JSON.stringify(options.outDir)}`);
  }
  const languages = options.languages ?? knownLanguages;
  const unknown = languages.filter((language) => !knownLanguages.includes(language));
  if (languages.length === 0 || unknown.length > 0) {
    throw new ThinktankError("VALIDATION_FAILED", `generateCodeApi: languages must be a non-empty list of ${knownLanguages.join(", ")}; got ${JSON.stringify(languages)}`, {
      details: { languages },
    });
  }
  if (!Array.isArray(options.servers)) throw new ThinktankError("VALIDATION_FAILED", "generateCodeApi: servers must be a list of { server, tools }");
  const seen = new Set<string>();
  for (const [position, server] of options.servers.entries()) {
    if (!server || typeof server.server !== "string" || server.server === "" || !Array.isArray(server.tools)) {
      throw new ThinktankError("VALIDATION_FAILED", `generateCodeApi: servers[${position}] must be { server: non-empty string, tools: [...] }`, { details: { position } });
    }
    if (seen.has(server.server)) {
      throw new ThinktankError("CODEGEN_DUPLICATE_SERVER", `generateCodeApi: server ${JSON.stringify(server.server)} is listed twice; server names must be unique`, {
        details: { server: server.server },
      });
    }
    seen.add(server.server);
    for (const [toolPosition, tool] of server.tools.entries()) {
      const schema = tool?.inputSchema;
      if (!tool || typeof tool.name !== "string" || tool.name === "" || schema === null || typeof schema !== "object" || Array.isArray(schema)) {
        throw new ThinktankError(
          "VALIDATION_FAILED",
          `generateCodeApi: tool ${toolPosition} of server ${JSON.stringify(server.server)} must have a non-empty name and an inputSchema object; got name ${JSON.stringify(tool?.name)} and inputSchema ${describe(schema)}`,
          { details: { server: server.server, tool: typeof tool?.name === "string" ? tool.name : toolPosition } },
        );
      }
    }
  }
  return { outDir: path.resolve(options.outDir), languages: knownLanguages.filter((language) => languages.includes(language)) };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
