import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A fresh temporary folder and a function that removes it. The removal tries again (Node's
 * maxRetries, with a growing delay) when a file appears in a folder as it is removed: a process a
 * test closed may still be finishing a write on a loaded machine.
 */
export function makeTempDir(prefix = "thinktank-"): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 8, retryDelay: 50 }) };
}

/** Writes a tree of files: `{ "a/b.txt": "text" }`; parents are created. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
