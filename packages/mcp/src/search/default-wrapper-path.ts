import type { WrapperPathResolver } from "./search-types.js";

/**
 * Where the code generator puts a tool's TypeScript wrapper, as the sandbox sees it:
 * `/mnt/code-api/servers/<server>/<tool>.ts`. This default only replaces characters that are not
 * safe in a file name; the code-mode wiring passes the generator's own identifier mapping
 * (`ToolSearchIndexOptions.wrapperPath`) so both always agree.
 */
export const defaultWrapperPath: WrapperPathResolver = (server, tool) =>
  `/mnt/code-api/servers/${safeFileName(server)}/${safeFileName(tool)}.ts`;

function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, "_");
  return /^[._-]*$/.test(safe) ? `_${safe}` : safe;
}
