import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { minimumEntryBytes, workspaceUsage } from "./workspace-usage.js";

const mebibyte = 1024 * 1024;
const temps: { cleanup(): void }[] = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.cleanup()));

function tree(): { root: string; workspace: string; outside: string } {
  const temp = makeTempDir("tt-usage-");
  temps.push(temp);
  const workspace = path.join(temp.dir, "workspace");
  const outside = path.join(temp.dir, "outside");
  fs.mkdirSync(path.join(workspace, "a"), { recursive: true });
  fs.mkdirSync(outside);
  // 8 MiB of real blocks outside the workspace: counted only if the walk leaves it.
  fs.writeFileSync(path.join(outside, "big"), Buffer.alloc(8 * mebibyte, 1));
  return { root: temp.dir, workspace, outside };
}

describe("workspaceUsage", () => {
  it("counts the blocks of every entry, at least 4 KiB each, without following links", async () => {
    const { workspace, outside } = tree();
    fs.writeFileSync(path.join(workspace, "a", "one"), Buffer.alloc(100_000, 1));
    fs.writeFileSync(path.join(workspace, "empty"), "");
    fs.symlinkSync(outside, path.join(workspace, "link"));
    const usage = await workspaceUsage([workspace]);
    expect(usage).toBeGreaterThanOrEqual(100_000 + 3 * minimumEntryBytes);
    expect(usage).toBeLessThan(mebibyte);
  });

  it("never enters a folder the program swaps for a link to outside while it is counted", async () => {
    const { workspace, outside } = tree();
    for (let index = 0; index < 50; index++) fs.writeFileSync(path.join(workspace, "a", `f${index}`), "x");
    // A program in the sandbox: swaps workspace/a between its folder and a link to outside, as fast as it can.
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs"); const p = require("path"); const w = process.argv[1], o = process.argv[2];
         const a = p.join(w, "a"), parked = p.join(w, "parked"), link = p.join(w, "link");
         fs.symlinkSync(o, link); process.stdout.write("swapping\\n");
         for (;;) { try { fs.renameSync(a, parked); fs.renameSync(link, a); fs.renameSync(a, link); fs.renameSync(parked, a); } catch {} }`,
        workspace,
        outside,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve) => swapper.stdout.once("data", () => resolve()));
      const usages: number[] = [];
      for (let walk = 0; walk < 600; walk++) usages.push(await workspaceUsage([workspace]));
      expect(usages.filter((usage) => usage >= 8 * mebibyte)).toEqual([]);
    } finally {
      swapper.kill("SIGKILL");
    }
  });

  it("reads a folder the program made unreadable, and changes nothing but it", async () => {
    const { workspace, outside } = tree();
    fs.writeFileSync(path.join(workspace, "a", "hidden"), Buffer.alloc(200_000, 1));
    fs.chmodSync(path.join(workspace, "a"), 0o000);
    fs.chmodSync(outside, 0o000);
    try {
      expect(await workspaceUsage([workspace])).toBeGreaterThanOrEqual(200_000);
      expect(fs.statSync(outside).mode & 0o777).toBe(0o000);
    } finally {
      fs.chmodSync(outside, 0o755);
      fs.chmodSync(path.join(workspace, "a"), 0o755);
    }
  });

  it("strips setuid and setgid bits on the way, and never through a link to a file outside", async () => {
    const { workspace, outside } = tree();
    const own = path.join(workspace, "a", "tool");
    fs.writeFileSync(own, "#!/bin/sh\n");
    fs.chmodSync(own, 0o6755);
    fs.chmodSync(path.join(workspace, "a"), 0o2755);
    const host = path.join(outside, "host-tool");
    fs.writeFileSync(host, "#!/bin/sh\n");
    fs.chmodSync(host, 0o4755);
    fs.symlinkSync(host, path.join(workspace, "link-to-host-tool"));
    await workspaceUsage([workspace]);
    expect(fs.statSync(own).mode & 0o7777).toBe(0o755);
    expect(fs.statSync(path.join(workspace, "a")).mode & 0o7777).toBe(0o755);
    expect(fs.statSync(host).mode & 0o7777).toBe(0o4755);
  });
});
