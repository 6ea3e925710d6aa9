import fs from "node:fs";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import type { CatalogServer } from "./catalog-types.js";
import { catalogFileName } from "./cached-tool-list.js";
import type { CachedToolList } from "./cached-tool-list.js";

/** Writes one server's cached tool list atomically (temp file, fsync, rename): readers never see half a file. */
export async function writeCatalogFile(dir: string, list: CachedToolList): Promise<string> {
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, catalogFileName(list.server));
  const body: CatalogServer = { ...list, server: list.server, tools: list.tools };
  await writeFileAtomic(file, `${JSON.stringify(body, null, 2)}\n`, { fsync: true });
  return file;
}

/** Removes a server's cached tool list (a server taken out of the config); a missing file is fine. */
export async function removeCatalogFile(dir: string, server: string): Promise<void> {
  await fs.promises.rm(path.join(dir, catalogFileName(server)), { force: true });
}
