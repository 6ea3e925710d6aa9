import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import type { ArchiveLimits } from "@thinktank/core";
import { checkSkillPackage } from "./check-skill-package.js";
import { unpackSkillPackage } from "./unpack-skill-package.js";
import type { SkillPackageSource } from "./unpack-skill-package.js";

/**
 * Checks a package exactly as an install would (archive safety, layout, strict frontmatter)
 * without installing it, and returns every problem. Archives are unpacked into a temporary
 * folder that is removed afterwards. A SKILL.md path checks the folder that holds it.
 */
export async function validateSkillPackage(
  source: SkillPackageSource,
  options: { readonly limits?: ArchiveLimits; readonly tempDir?: string } = {},
): Promise<{ name: string | undefined; problems: string[] }> {
  let resolved = source;
  if (source.kind === "path" && path.basename(source.path) === "SKILL.md") resolved = { kind: "path", path: path.dirname(source.path) };
  const staging = await fs.mkdtemp(path.join(options.tempDir ?? os.tmpdir(), "thinktank-validate-"));
  try {
    const { root, folderName } = await unpackSkillPackage(resolved, path.join(staging, "package"), options.limits);
    const check = await checkSkillPackage(root, folderName);
    return { name: check.name, problems: [...check.problems] };
  } catch (error) {
    if (!isThinktankError(error)) throw error;
    const listed = error.details?.problems;
    const problems = Array.isArray(listed) ? listed.map(String) : [`${error.code}: ${error.message}`];
    return { name: undefined, problems: error.code === "NOT_FOUND" ? [error.message] : problems };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
