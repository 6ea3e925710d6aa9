import fs from "node:fs";
import path from "node:path";

/** The standard system search path, used when the entry point passes none. */
export const defaultSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface FindExecutableOptions {
  /** Where a name with a slash but not absolute (`./server.js`) is looked up, as a spawn with this cwd would. @default process.cwd() */
  readonly cwd?: string;
  /** Answer the real path (links resolved); false answers the path as found, so a program that reads its own name (argv[0]) still sees it. @default true */
  readonly realPath?: boolean;
}

/**
 * The path of an executable: `name` itself when it contains a slash, else the first match on
 * `searchPath` (a PATH-style list). Undefined when there is none. Links are resolved unless
 * `realPath` is false.
 */
export function findExecutable(name: string, searchPath: string = defaultSearchPath, options: FindExecutableOptions = {}): string | undefined {
  const candidates = name.includes("/") ? [path.resolve(options.cwd ?? process.cwd(), name)] : searchPath.split(":").filter(Boolean).map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      const real = fs.realpathSync(candidate);
      if (fs.statSync(real).isFile()) return options.realPath === false ? candidate : real;
    } catch {
      // not here: try the next folder
    }
  }
  return undefined;
}
