import { createHash } from "node:crypto";
import path from "node:path";
import type { CatalogTool } from "./catalog-types.js";
import type { EraVerdict } from "../manager/protocol-era.js";
import { readCatalogFile } from "./read-catalog.js";

/** What the MCP manager stores for one server: the catalog format plus where the list came from. */
export interface CachedToolList {
  readonly server: string;
  readonly tools: readonly CatalogTool[];
  /** Hash of the server's entry as written (placeholders, never resolved secrets); see entryHash. */
  readonly configHash: string;
  /** When the list was fetched from the live server (ISO 8601). */
  readonly fetchedAt: string;
  /** The transport it was fetched over. */
  readonly transport: string;
  /** A 2026-07-28 cacheable list: how long after fetchedAt it stays fresh (the server's ttlMs). Absent for 2025-era lists. */
  readonly ttlMs?: number;
  /** What the server speaks (`{ era: "legacy" }`, or `{ era: "modern", discover }`), so the next start skips the probe. */
  readonly verdict?: EraVerdict | undefined;
}

/**
 * The file a server's tool list is cached in. Names safe as they are keep their name; others
 * (`plugin:server`, spaces, slashes) are replaced character by character and get a short hash,
 * so two different names never share a file.
 */
export function catalogFileName(server: string): string {
  const safe = server.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_").slice(0, 120);
  if (safe === server) return `${safe}.json`;
  const suffix = createHash("sha256").update(server).digest("hex").slice(0, 8);
  return `${safe}-${suffix}.json`;
}

/**
 * One server's cached tool list as the manager wrote it, or undefined when there is none (or the
 * file is not in the catalog format). Files written by hand without the metadata still count:
 * `configHash`, `fetchedAt` and `transport` then come back as empty strings.
 */
export function readCachedToolList(dir: string, server: string): CachedToolList | undefined {
  const parsed = readCatalogFile(path.join(dir, catalogFileName(server)));
  if (!parsed.ok || parsed.server.server !== server) return undefined;
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  const { tools, configHash, fetchedAt, transport, ttlMs, verdict } = parsed.server;
  return {
    server,
    tools,
    configHash: text(configHash),
    fetchedAt: text(fetchedAt),
    transport: text(transport),
    ...(typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs >= 0 ? { ttlMs } : {}),
    ...(eraVerdict(verdict) ? { verdict: verdict as EraVerdict } : {}),
  };
}

/** A recorded verdict in its shape (a file edited by hand, or of another version, is ignored: the server is probed). */
function eraVerdict(value: unknown): boolean {
  const era = (value as { era?: unknown } | undefined)?.era;
  if (era === "legacy") return true;
  const discover = (value as { discover?: { supportedVersions?: unknown } } | undefined)?.discover;
  return era === "modern" && typeof discover === "object" && discover !== null && Array.isArray(discover.supportedVersions);
}
