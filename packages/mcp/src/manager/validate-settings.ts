import { ThinktankError } from "@thinktank/core";
import type { McpManagerOptions } from "./manager-types.js";

/** CONFIG_INVALID naming every bad `mcp.*` setting the manager reads. */
export function validateSettings(options: McpManagerOptions): void {
  const settings = options.mcp as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ["connect_timeout_ms", "call_timeout_ms"]) {
    if (!(typeof settings[key] === "number" && (settings[key] as number) > 0)) problems.push(`mcp.${key}: expected a positive number, got ${JSON.stringify(settings[key])}`);
  }
  for (const key of ["retries", "retry_base_delay_ms"]) {
    if (!(Number.isInteger(settings[key]) && (settings[key] as number) >= 0)) problems.push(`mcp.${key}: expected an integer ≥ 0, got ${JSON.stringify(settings[key])}`);
  }
  for (const key of ["discovery_concurrency", "discovery_retry_base_ms", "discovery_retry_max_ms"]) {
    if (settings[key] !== undefined && !(Number.isInteger(settings[key]) && (settings[key] as number) >= 1)) problems.push(`mcp.${key}: expected an integer ≥ 1, got ${JSON.stringify(settings[key])}`);
  }
  if (settings.first_connect_grace_ms !== undefined && !(Number.isInteger(settings.first_connect_grace_ms) && (settings.first_connect_grace_ms as number) >= 0)) {
    problems.push(`mcp.first_connect_grace_ms: expected an integer ≥ 0, got ${JSON.stringify(settings.first_connect_grace_ms)}`);
  }
  if (!(typeof settings.catalog_dir === "string" && settings.catalog_dir !== "")) problems.push(`mcp.catalog_dir: expected a folder path, got ${JSON.stringify(settings.catalog_dir)}`);
  if (problems.length > 0) throw new ThinktankError("CONFIG_INVALID", problems.join("; "), { details: { problems } });
}
