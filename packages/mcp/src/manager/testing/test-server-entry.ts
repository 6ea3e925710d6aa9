import path from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerEntry } from "../../servers/server-entry.js";

/** The stdio test server (see test-server.mjs for its tools and switches). */
export const testServerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-server.mjs");

/** A stdio entry that runs the test server with the current Node binary and the given switches. */
export function testServerEntry(env: Record<string, string> = {}, extra: Partial<McpServerEntry> = {}): McpServerEntry {
  return { command: process.execPath, args: [testServerPath], env, ...extra };
}
