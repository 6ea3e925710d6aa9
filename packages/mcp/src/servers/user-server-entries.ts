import { userServerName } from "../manager/user-servers.js";
import type { McpServerEntry } from "./server-entry.js";
import { transportKindOf } from "./transport-kind.js";

/**
 * One user's own servers out of extensions_config.json's `users` section
 * (`users.<id>.mcpServers.<name>`), keyed as that user sees them: `~<name>`. A stdio entry is
 * left out (it would run a program on the host: only an administrator adds those; the gateway
 * refuses it, so one here is a hand edit), and so is anything that is not an object. The entries
 * are the document's own objects (frozen in a store snapshot): copy them before changing them.
 */
export function userServerEntries(users: unknown, user: string): Record<string, McpServerEntry> {
  const record = users && typeof users === "object" && Object.hasOwn(users, user) ? (users as Record<string, unknown>)[user] : undefined;
  const section = record && typeof record === "object" ? (record as { mcpServers?: unknown }).mcpServers : undefined;
  const entries: Record<string, McpServerEntry> = {};
  if (!section || typeof section !== "object") return entries;
  for (const [name, entry] of Object.entries(section as Record<string, unknown>)) {
    if (entry && typeof entry === "object" && !Array.isArray(entry) && transportKindOf(entry as McpServerEntry) !== "stdio") entries[userServerName(name)] = entry as McpServerEntry;
  }
  return entries;
}

/** Why a user's own server entry is never started, for a listing that shows it as `denied`. */
export const userStdioRefusal = "a user's own server may only be remote (http or sse): a stdio server runs a program on the host, an administrator's decision; the agent never starts it";

/**
 * The entries of one user's own servers that userServerEntries leaves out because the user may not
 * run them (stdio, hand-written into the file), keyed `~<name>`, so a listing can show them to that
 * user as denied instead of hiding them.
 */
export function refusedUserServerEntries(users: unknown, user: string): Record<string, McpServerEntry> {
  const record = users && typeof users === "object" && Object.hasOwn(users, user) ? (users as Record<string, unknown>)[user] : undefined;
  const section = record && typeof record === "object" ? (record as { mcpServers?: unknown }).mcpServers : undefined;
  const refused: Record<string, McpServerEntry> = {};
  if (!section || typeof section !== "object") return refused;
  for (const [name, entry] of Object.entries(section as Record<string, unknown>)) {
    if (entry && typeof entry === "object" && !Array.isArray(entry) && transportKindOf(entry as McpServerEntry) === "stdio") refused[userServerName(name)] = entry as McpServerEntry;
  }
  return refused;
}
