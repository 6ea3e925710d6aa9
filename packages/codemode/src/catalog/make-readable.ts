import fs from "node:fs";
import path from "node:path";

/**
 * Makes every folder under `root` enterable and listable by others (o+rx), and every file
 * readable (o+r). The sandbox runs programs as an unprivileged user (when the host is root), and
 * the generator stages server folders with mkdtemp, which makes them 0700: without this, Python
 * programs could not import their wrappers. Answers how many entries it changed.
 */
export function makeReadable(root: string): number {
  let changed = 0;
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.isSymbolicLink()) continue;
      const file = path.join(folder, entry.name);
      const wanted = entry.isDirectory() ? 0o005 : 0o004;
      const mode = fs.statSync(file).mode & 0o7777;
      if ((mode & wanted) !== wanted) {
        fs.chmodSync(file, mode | wanted | (entry.isDirectory() ? 0o055 : 0o044));
        changed += 1;
      }
      if (entry.isDirectory()) visit(file);
    }
  };
  if (fs.existsSync(root)) visit(root);
  return changed;
}
