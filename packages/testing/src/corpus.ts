import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The repository's root folder (where package.json and config.yaml sit). */
export function repositoryRoot(): string {
  return repoRoot;
}

/** Where the third-party test corpus is looked for: $THINKTANK_CORPUS, else ../shared/corpus beside the repository. */
export function corpusLocation(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.THINKTANK_CORPUS ? path.resolve(env.THINKTANK_CORPUS) : path.resolve(repoRoot, "../shared/corpus");
}

/**
 * The test corpus folder. Throws a clear error when it is absent: the evals cannot run without it.
 * Tests declare `needs("corpus")` (optional-parts.ts) instead, and call this only inside such a test.
 */
export function corpusDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const dir = corpusLocation(env);
  if (!fs.existsSync(path.join(dir, "expected.json"))) {
    throw new Error(
      `The test corpus was not found at ${dir} (no expected.json there). ` +
        "Put ../shared/corpus beside the repository or set THINKTANK_CORPUS to its path.",
    );
  }
  return dir;
}
