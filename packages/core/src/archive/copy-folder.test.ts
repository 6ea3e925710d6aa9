import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ThinktankError } from "../errors/thinktank-error.js";
import { defaultArchiveLimits } from "./archive-limits.js";
import { copyFolder } from "./copy-folder.js";

let dir: string;
let source: string;
let destination: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tt-copy-")));
  source = path.join(dir, "source");
  destination = path.join(dir, "destination");
  fs.mkdirSync(path.join(source, "scripts"), { recursive: true });
  fs.writeFileSync(path.join(source, "SKILL.md"), "skill");
  fs.writeFileSync(path.join(source, "scripts", "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ThinktankError) return error.code;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("copyFolder", () => {
  it("copies files and folders, keeps the executable bit and skips what it is told to", async () => {
    fs.writeFileSync(path.join(source, ".DS_Store"), "junk");
    const result = await copyFolder(source, destination, { skip: (segments) => segments.some((s) => s.startsWith(".")) });
    expect([...result.files].sort()).toEqual(["SKILL.md", "scripts/run.sh"]);
    expect(result.skipped).toEqual([".DS_Store"]);
    expect(fs.statSync(path.join(destination, "scripts/run.sh")).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(path.join(destination, "SKILL.md"), "utf8")).toBe("skill");
  });

  it("refuses symbolic links, even ones pointing inside", async () => {
    fs.symlinkSync("/etc/passwd", path.join(source, "passwd"));
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_SYMLINK");
    fs.rmSync(path.join(source, "passwd"));
    fs.symlinkSync("SKILL.md", path.join(source, "alias.md"));
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_SYMLINK");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("refuses FIFOs", async () => {
    execFileSync("mkfifo", [path.join(source, "pipe")]);
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_SPECIAL_FILE");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("refuses names with ':' or backslashes", async () => {
    fs.writeFileSync(path.join(source, "a:b"), "x");
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_BAD_NAME");
    fs.rmSync(path.join(source, "a:b"));
    fs.writeFileSync(path.join(source, "a\\b"), "x");
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_BAD_NAME");
  });

  it("applies the entry, per-file and total limits", async () => {
    expect(await codeOf(copyFolder(source, destination, { limits: { ...defaultArchiveLimits, maxEntries: 2 } }))).toBe("ARCHIVE_TOO_MANY_ENTRIES");
    fs.writeFileSync(path.join(source, "big.bin"), Buffer.alloc(2048));
    expect(await codeOf(copyFolder(source, destination, { limits: { ...defaultArchiveLimits, maxFileBytes: 1024 } }))).toBe("ARCHIVE_TOO_LARGE");
    expect(await codeOf(copyFolder(source, destination, { limits: { ...defaultArchiveLimits, maxTotalBytes: 2050 } }))).toBe("ARCHIVE_TOO_LARGE");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("reports a missing source or a file where a folder was expected", async () => {
    expect(await codeOf(copyFolder(path.join(dir, "missing"), destination))).toBe("NOT_FOUND");
    expect(await codeOf(copyFolder(path.join(source, "SKILL.md"), destination))).toBe("UNSUPPORTED_SOURCE");
  });
});
