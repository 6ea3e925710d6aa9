import fs from "node:fs";
import path from "node:path";

/** The standard system search path, used when the entry point passes none. */
export const defaultSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The real path of an executable: `name` itself when it contains a slash, else the first match on
 * `searchPath` (a PATH-style list). Undefined when there is none.
 */
export function findExecutable(name: string, searchPath: string = defaultSearchPath): string | undefined {
  const candidates = name.includes("/") ? [name] : searchPath.split(":").filter(Boolean).map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      const real = fs.realpathSync(candidate);
      if (fs.statSync(real).isFile()) return real;
    } catch {
      // not here: try the next folder
    }
  }
  return undefined;
}
