import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, copyFolder, defaultArchiveLimits, extractZip } from "@thinktank/core";
import type { ArchiveLimits } from "@thinktank/core";
import { findPackageRoot } from "./check-skill-package.js";

/** What to install or validate: an uploaded archive, or an archive or folder on this machine. */
export type SkillPackageSource = { readonly kind: "archive"; readonly data: Buffer } | { readonly kind: "path"; readonly path: string };

/** Left out of every package: macOS metadata, and dotfiles and dot-folders anywhere. */
export function isIgnoredPackageEntry(segments: readonly string[]): boolean {
  return segments.some((segment) => segment === "__MACOSX" || segment.startsWith("."));
}

/**
 * Unpacks a skill package into `destination` (which must not exist) with the archive safety
 * rules of @thinktank/core, and finds the skill folder in it: the top, or a single wrapper
 * folder. `folderName` is the name the package gives the folder (the wrapper's, or the source
 * folder's), undefined for an archive without a wrapper.
 */
export async function unpackSkillPackage(
  source: SkillPackageSource,
  destination: string,
  limits: ArchiveLimits = defaultArchiveLimits,
): Promise<{ root: string; folderName: string | undefined }> {
  let sourceFolderName: string | undefined;
  if (source.kind === "archive") {
    await extractZip(source.data, destination, { limits, skip: isIgnoredPackageEntry });
  } else {
    let stat;
    try {
      stat = await fs.stat(source.path);
    } catch (error) {
      throw new ThinktankError("NOT_FOUND", `${source.path} does not exist`, { cause: error });
    }
    if (stat.isDirectory()) {
      await copyFolder(source.path, destination, { limits, skip: isIgnoredPackageEntry });
      sourceFolderName = path.basename(await fs.realpath(source.path));
    } else if (stat.isFile()) {
      await extractZip(source.path, destination, { limits, skip: isIgnoredPackageEntry });
    } else {
      throw new ThinktankError("UNSUPPORTED_SOURCE", `${source.path} is neither a folder nor an archive file`);
    }
  }
  const found = await findPackageRoot(destination);
  if (!found) {
    throw new ThinktankError("INVALID_SKILL", "the package has no SKILL.md at its top or in a single folder", {
      details: { problems: ["SKILL.md is missing: put it at the top of the package or in one folder named after the skill"] },
    });
  }
  return { root: found.root, folderName: found.wrapper ?? sourceFolderName };
}
