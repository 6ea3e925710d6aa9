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

  it("copy-inside: copies a link to a file or folder inside as its content, and still refuses links that leave, dangle or loop", async () => {
    fs.writeFileSync(path.join(source, "CLAUDE.md"), "guide");
    fs.symlinkSync("CLAUDE.md", path.join(source, "AGENTS.md"));
    fs.symlinkSync("scripts", path.join(source, "tools"));
    const result = await copyFolder(source, destination, { links: "copy-inside" });
    expect(result.linked).toEqual([
      { path: "AGENTS.md", target: "CLAUDE.md" },
      { path: "tools", target: "scripts" },
    ]);
    expect(fs.lstatSync(path.join(destination, "AGENTS.md")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(destination, "AGENTS.md"), "utf8")).toBe("guide");
    expect(fs.lstatSync(path.join(destination, "tools")).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(destination, "tools", "run.sh"), "utf8")).toBe("#!/bin/sh\n");
    fs.rmSync(destination, { recursive: true });

    const refused = async (target: string, message: RegExp): Promise<void> => {
      fs.symlinkSync(target, path.join(source, "scripts", "bad"));
      const error = await copyFolder(source, destination, { links: "copy-inside" }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "ARCHIVE_SYMLINK", message: expect.stringMatching(message) });
      expect(fs.existsSync(destination)).toBe(false);
      fs.rmSync(path.join(source, "scripts", "bad"));
    };
    await refused("/etc/passwd", /leading outside the folder/);
    await refused(path.join(dir, "elsewhere"), /does not exist/);
    await refused("../../destination-sibling", /does not exist|leading outside/);
    fs.mkdirSync(path.join(dir, "outside"));
    await refused("../../outside", /leading outside the folder/);
    await refused("..", /a loop/);
    await refused(".", /a loop/);
  });

  it("refuses FIFOs", async () => {
    execFileSync("mkfifo", [path.join(source, "pipe")]);
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_SPECIAL_FILE");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("refuses a file with a second hard link, such as one to a host file outside the folder", async () => {
    const secret = path.join(dir, "host-secret.txt");
    fs.writeFileSync(secret, "host secret");
    fs.linkSync(secret, path.join(source, "scripts", "notes.md"));
    const error = await copyFolder(source, destination).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "ARCHIVE_HARD_LINK", message: expect.stringContaining('"scripts/notes.md" has 2 hard links') });
    expect(fs.existsSync(destination)).toBe(false);
    // Both names are refused: the one inside is not more trustworthy than the one outside.
    fs.rmSync(path.join(source, "scripts", "notes.md"));
    fs.linkSync(path.join(source, "SKILL.md"), path.join(source, "scripts", "copy.md"));
    expect(await codeOf(copyFolder(source, destination))).toBe("ARCHIVE_HARD_LINK");
  });

  it("checks the descriptor it copies from: a file swapped for a hard link after the walk is refused", async () => {
    const secret = path.join(dir, "host-secret.txt");
    fs.writeFileSync(secret, "host secret");
    const notes = path.join(source, "scripts", "notes.md");
    fs.writeFileSync(notes, "notes");
    // skip() is asked during the copy, after the walk checked every file: swap there, deterministically.
    const swap = (segments: readonly string[]): boolean => {
      if (segments.join("/") === "scripts/notes.md") {
        fs.rmSync(notes);
        fs.linkSync(secret, notes);
      }
      return false;
    };
    expect(await codeOf(copyFolder(source, destination, { skip: swap }))).toBe("ARCHIVE_HARD_LINK");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("checks the descriptor it copies from: a folder swapped for a link to a host folder after the walk is refused", async () => {
    const host = path.join(dir, "host");
    fs.mkdirSync(host);
    fs.writeFileSync(path.join(host, "run.sh"), "host secret");
    const swap = (segments: readonly string[]): boolean => {
      if (segments.join("/") === "scripts/run.sh") {
        fs.rmSync(path.join(source, "scripts"), { recursive: true });
        fs.symlinkSync(host, path.join(source, "scripts"));
      }
      return false;
    };
    expect(await codeOf(copyFolder(source, destination, { skip: swap }))).toBe("CONFLICT");
    expect(fs.existsSync(destination)).toBe(false);
  });

  it.each([
    ["a right-to-left override", "evil\u202Egpj.md"],
    ["a zero-width space", "a\u200Bb.md"],
    ["a C1 control", "c\u0085d"],
    ["a full-width '..'", "\uFF0E\uFF0E"],
    ["a full-width '/'", "x\uFF0Fy"],
    ["a Cyrillic look-alike of SKILL.md", "\u0405KILL.md"],
    ["a full-width SKILL.md", "\uFF33KILL.md"],
  ])("refuses a name with %s, naming the character escaped", async (_case, name) => {
    fs.writeFileSync(path.join(source, "scripts", name), "x");
    const error = await copyFolder(source, destination).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "ARCHIVE_BAD_NAME", message: expect.stringMatching(/\\u\{[0-9A-F]+\}/) });
    expect(fs.existsSync(destination)).toBe(false);
  });

  it("accepts Cyrillic and other non-Latin names that are not look-alikes of reserved names", async () => {
    fs.writeFileSync(path.join(source, "scripts", "\u0437\u0430\u043C\u0435\u0442\u043A\u0438.md"), "notes");
    const result = await copyFolder(source, destination);
    expect(result.files).toContain("scripts/\u0437\u0430\u043C\u0435\u0442\u043A\u0438.md");
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
