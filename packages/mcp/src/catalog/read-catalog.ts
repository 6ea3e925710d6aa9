import fs from "node:fs";
import path from "node:path";
import type { CatalogServer, CatalogSkip, CatalogTool } from "./catalog-types.js";

/**
 * Reads a catalog folder: one JSON file per server, `{ server, tools: [...] }`. Files of another
 * shape (an index.json, a README, malformed JSON) are skipped and reported, never fatal. Servers
 * come back sorted by name so every consumer sees the same order.
 */
export function readCatalog(dir: string): { servers: CatalogServer[]; skipped: CatalogSkip[] } {
  const servers: CatalogServer[] = [];
  const skipped: CatalogSkip[] = [];
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort() : [];
  for (const name of names) {
    const file = path.join(dir, name);
    const parsed = readCatalogFile(file);
    if (parsed.ok) servers.push(parsed.server);
    else skipped.push(parsed.skip);
  }
  servers.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  return { servers, skipped };
}

export function readCatalogFile(file: string): { ok: true; server: CatalogServer } | { ok: false; skip: CatalogSkip } {
  const skip = (reason: string) => ({ ok: false as const, skip: { file, reason } });
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    return skip(`not valid JSON: ${(error as Error).message}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return skip("not an object");
  const record = data as Record<string, unknown>;
  if (typeof record.server !== "string" || record.server === "") return skip("no 'server' string");
  if (!Array.isArray(record.tools)) return skip("no 'tools' list");
  const tools = record.tools.filter(isTool);
  if (tools.length !== record.tools.length) return skip("a tool without a 'name' string or an 'inputSchema' object");
  return { ok: true, server: { ...record, server: record.server, tools } as CatalogServer };
}

function isTool(value: unknown): value is CatalogTool {
  if (!value || typeof value !== "object") return false;
  const tool = value as Record<string, unknown>;
  return typeof tool.name === "string" && !!tool.inputSchema && typeof tool.inputSchema === "object";
}
