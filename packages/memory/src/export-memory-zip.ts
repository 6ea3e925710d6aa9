import AdmZip from "adm-zip";
import { memoryRoot } from "./memory-paths.js";
import type { UserMemory } from "./user-memory.js";

/** A user's whole memory as a zip (GET /api/memory/export): one entry per file, named below /memories (`profile.md`, `projects/a.md`). */
export async function exportMemoryZip(memory: UserMemory): Promise<Buffer> {
  const zip = new AdmZip();
  for (const file of await memory.files()) zip.addFile(file.path.slice(memoryRoot.length + 1), Buffer.from(file.text, "utf8"), "", 0o600 << 16);
  return zip.toBuffer();
}
