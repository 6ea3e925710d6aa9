import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The repository's root folder (where package.json and config.yaml sit). */
export function repositoryRoot(): string {
  return repoRoot;
}

/**
 * The third-party test corpus: $THINKTANK_CORPUS, else ../shared/corpus beside the repository.
 * Throws a clear error when it is absent: CI always has it, and a silent skip would hide a gap.
 * Set THINKTANK_SKIP_CORPUS=1 to skip corpus tests on purpose (see `corpusAvailable`).
 */
export function corpusDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const dir = env.THINKTANK_CORPUS ? path.resolve(env.THINKTANK_CORPUS) : path.resolve(repoRoot, "../shared/corpus");
  if (!fs.existsSync(path.join(dir, "expected.json"))) {
    throw new Error(
      `The test corpus was not found at ${dir} (no expected.json there). ` +
        "Put ../shared/corpus beside the repository or set THINKTANK_CORPUS to its path; " +
        "set THINKTANK_SKIP_CORPUS=1 to skip the corpus tests deliberately.",
    );
  }
  return dir;
}

/** False only when THINKTANK_SKIP_CORPUS=1: use with `describe.skipIf(!corpusAvailable())`, which prints the skip. */
export function corpusAvailable(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (env.THINKTANK_SKIP_CORPUS === "1") {
    console.warn("THINKTANK_SKIP_CORPUS=1: corpus tests are skipped on purpose.");
    return false;
  }
  return true;
}
