import fs from "node:fs";
import path from "node:path";

/** One file or link in a skill's folder, as the console shows it (never followed, never read). */
export interface SkillFileEntry {
  /** Relative to the skill's folder, `/`-separated. */
  readonly path: string;
  readonly kind: "file" | "link";
  readonly bytes: number;
}

export interface ListSkillFilesOptions {
  /** Entries listed at most; the answer says when more were left out. @default 500 */
  readonly maxEntries?: number;
}

/**
 * The files of a skill's folder (SKILL.md, scripts, references, assets), sorted, walked without
 * following links (a link is listed as one, with its own size) and cut at `maxEntries`. Folders
 * that cannot be read are skipped.
 */
export async function listSkillFiles(dir: string, options: ListSkillFilesOptions = {}): Promise<{ files: SkillFileEntry[]; truncated: boolean }> {
  const max = options.maxEntries ?? 500;
  const files: SkillFileEntry[] = [];
  let truncated = false;
  const walk = async (relative: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(dir, relative), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= max) {
        truncated = true;
        return;
      }
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile() || entry.isSymbolicLink()) {
        const stat = await fs.promises.lstat(path.join(dir, child)).catch(() => undefined);
        if (stat) files.push({ path: child, kind: entry.isSymbolicLink() ? "link" : "file", bytes: stat.size });
      }
    }
  };
  await walk("");
  return { files, truncated };
}
