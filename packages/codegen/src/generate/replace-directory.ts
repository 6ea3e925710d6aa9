import fs from "node:fs";
import path from "node:path";

/**
 * Replaces the folder `target` with one holding exactly `files` (relative path → content). The new
 * folder is written in full under `stagingRoot` (on the same file system) and renamed into place,
 * so a reader sees either the old server or the new one, never a half-written mix.
 */
export function replaceDirectory(target: string, files: ReadonlyMap<string, string>, stagingRoot: string): void {
  fs.mkdirSync(stagingRoot, { recursive: true });
  const staging = fs.mkdtempSync(path.join(stagingRoot, `${path.basename(target)}-`));
  // mkdtemp makes the folder 0700; the code API is read by sandboxed programs running as another user.
  fs.chmodSync(staging, 0o755);
  const folders = new Set([staging]);
  for (const [relative, content] of files) {
    const file = path.join(staging, relative);
    const folder = path.dirname(file);
    if (!folders.has(folder)) {
      fs.mkdirSync(folder, { recursive: true });
      folders.add(folder);
    }
    fs.writeFileSync(file, content);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(target)) {
    const old = `${staging}.old`;
    fs.renameSync(target, old);
    fs.renameSync(staging, target);
    fs.rmSync(old, { recursive: true, force: true });
  } else {
    fs.renameSync(staging, target);
  }
}

/** Writes a file only when its content differs, so an unchanged file keeps its mtime. */
export function writeIfChanged(file: string, content: string): boolean {
  try {
    if (fs.readFileSync(file, "utf8") === content) return false;
  } catch {
    // absent or unreadable: write it
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, content);
  fs.renameSync(temporary, file);
  return true;
}
