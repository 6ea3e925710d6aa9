import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh temporary folder and a function that removes it. */
export function makeTempDir(prefix = "thinktank-"): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a tree of files: `{ "a/b.txt": "text" }`; parents are created. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
