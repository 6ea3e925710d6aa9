import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FileOperations } from "./file-operations.js";
import { VirtualFileSystem } from "./virtual-file-system.js";

const temps: { cleanup(): void }[] = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.cleanup()));

/** The sandbox user's ids, when the test runs as root: files the tools write get them, what is outside must not. */
const sandboxUser = { uid: 54321, gid: 54321 };
const asRoot = process.getuid?.() === 0;

/** Every entry under `folder`: its kind, owner, mode and (for files) content. */
function snapshot(folder: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      const stats = fs.lstatSync(file);
      const content = stats.isFile() ? fs.readFileSync(file, "utf8") : stats.isSymbolicLink() ? `-> ${fs.readlinkSync(file)}` : "";
      entries[path.relative(folder, file)] = `${stats.isDirectory() ? "folder" : "file"} ${stats.uid}:${stats.gid} ${(stats.mode & 0o7777).toString(8)} ${content}`;
      if (stats.isDirectory()) walk(file);
    }
  };
  const top = fs.statSync(folder);
  entries["."] = `folder ${top.uid}:${top.gid} ${(top.mode & 0o7777).toString(8)}`;
  walk(folder);
  return entries;
}

describe("file operations while a sandboxed program swaps folders for links", () => {
  it("write (new nested folders too), replace and read only inside, or refuse with PATH_TRAVERSAL or NOT_FOUND; nothing outside is created, changed or chowned", async () => {
    const temp = makeTempDir("tt-swaps-");
    temps.push(temp);
    const folders = { workspace: path.join(temp.dir, "workspace"), uploads: path.join(temp.dir, "uploads"), outputs: path.join(temp.dir, "outputs") };
    const outside = path.join(temp.dir, "outside");
    fs.mkdirSync(path.join(folders.workspace, "a"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(folders.workspace, "a", "file.txt"), "inside\n");
    fs.writeFileSync(path.join(folders.workspace, "f.txt"), "inside\n");
    fs.writeFileSync(path.join(outside, "file.txt"), "outside\n");
    fs.writeFileSync(path.join(outside, "f.txt"), "outside\n");
    fs.mkdirSync(path.join(outside, "new0"));
    if (asRoot) fs.chownSync(folders.workspace, sandboxUser.uid, sandboxUser.gid);
    const before = snapshot(outside);
    const skills = { snapshot: async () => ({ skills: [] }), resolvePath: async () => Promise.reject(new Error("no skills here")) };
    const operations = new FileOperations(new VirtualFileSystem({ skills, folders }));

    // A program in the sandbox: swaps workspace/a for a link to outside and workspace/f.txt for a link to
    // outside/f.txt, and back, as fast as it can (a folder the tools made while `a` was away is moved aside).
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs"); const p = require("path"); const w = process.argv[1], o = process.argv[2];
         const a = p.join(w, "a"), parked = p.join(w, "parked"), f = p.join(w, "f.txt"), fParked = p.join(w, "f.parked");
         const t = (step) => { try { step(); } catch {} };
         let strays = 0; process.stdout.write("swapping\\n");
         for (;;) {
           t(() => { if (fs.existsSync(parked) && fs.lstatSync(a).isDirectory()) fs.renameSync(a, p.join(w, "stray" + strays++)); });
           t(() => fs.renameSync(a, parked)); t(() => fs.symlinkSync(o, a));
           t(() => fs.renameSync(f, fParked)); t(() => fs.symlinkSync(p.join(o, "f.txt"), f));
           t(() => fs.unlinkSync(a)); t(() => fs.renameSync(parked, a));
           t(() => fs.unlinkSync(f)); t(() => fs.renameSync(fParked, f));
         }`,
        folders.workspace,
        outside,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const outcomes = new Map<string, number>();
    try {
      await new Promise<void>((resolve) => swapper.stdout.once("data", () => resolve()));
      const workspace = "/mnt/user-data/workspace";
      for (let round = 0; round < 1500; round++) {
        const attempts = [
          () => operations.write(`${workspace}/a/file.txt`, `inside ${round}\n`),
          () => operations.write(`${workspace}/a/new${round % 3}/deeper/x.txt`, "inside\n"),
          () => operations.write(`${workspace}/f.txt`, "inside\n", round % 2 === 0),
          () => operations.replace(`${workspace}/a/file.txt`, "inside", "inside", true),
          () => operations.replace(`${workspace}/f.txt`, "inside", "inside", true),
          () => operations.read(`${workspace}/a/file.txt`),
          () => operations.read(`${workspace}/f.txt`),
        ];
        for (const attempt of attempts) {
          let outcome: string;
          try {
            const answer = await attempt();
            outcome = answer.startsWith("outside") ? "read outside" : "ok";
          } catch (error) {
            outcome = isThinktankError(error) ? error.code : `unexpected: ${String(error)}`;
          }
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    expect(snapshot(outside)).toEqual(before);
    expect([...outcomes.keys()].filter((outcome) => !["ok", "PATH_TRAVERSAL", "NOT_FOUND"].includes(outcome))).toEqual([]);
    // The swaps did happen while the tools ran, and the tools still worked.
    expect(outcomes.get("PATH_TRAVERSAL")).toBeGreaterThan(0);
    expect(outcomes.get("ok")).toBeGreaterThan(0);

    // What the tools create inside gets the workspace's owner (folders too), through the descriptors.
    await new Promise<void>((resolve) => (swapper.exitCode !== null || swapper.signalCode !== null ? resolve() : swapper.once("exit", () => resolve())));
    fs.rmSync(path.join(folders.workspace, "a"), { recursive: true, force: true });
    await operations.write("/mnt/user-data/workspace/a/made/note.txt", "inside\n");
    if (asRoot) {
      for (const made of ["a", "a/made", "a/made/note.txt"]) expect(fs.statSync(path.join(folders.workspace, made))).toMatchObject(sandboxUser);
    }
  }, 60_000);
});
