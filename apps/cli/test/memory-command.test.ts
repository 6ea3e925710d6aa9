import fs from "node:fs";
import path from "node:path";
import AdmZip from "adm-zip";
import { loadConfig } from "@thinktank/core";
import { openIdentity } from "@thinktank/identity";
import { MemoryStore } from "@thinktank/memory";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-memory-");
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "profile.md": "- Name: Ada\n",
  });
});
afterEach(() => temp.cleanup());

const run = (argv: string[], env: Record<string, string> = {}, input?: string): Promise<CapturedRun> =>
  runCaptured(argv, { cwd: temp.dir, env: { PATH: process.env.PATH ?? "", HOME: temp.dir, ...env }, ...(input === undefined ? {} : { input }) });
const config = () => loadConfig({ cwd: temp.dir, env: {} });

describe("thinktank memory", () => {
  it("edits, lists, shows, exports, deletes and forgets the operator's memory", async () => {
    expect(await run(["memory", "edit", "profile.md", "--from", "profile.md"])).toMatchObject({ code: 0, stdout: "wrote /memories/profile.md (12 B)\n" });
    expect((await run(["memory", "edit", "/memories/projects/orion.md", "--from", "-"], {}, "Orion ships in May.\n")).code).toBe(0);
    const listed = await run(["memory", "list"]);
    expect(listed.stdout).toMatch(/^\/memories\/profile\.md\s+12 B {2}\d{4}-\d\d-\d\dT/m);
    expect(listed.stdout).toContain("2 files in admin's memory; memory on, automatic memory off");
    const json = JSON.parse((await run(["memory", "list", "--json"])).stdout) as { user: string; files: { path: string }[]; total_bytes: number };
    expect(json).toMatchObject({ user: "admin", total_bytes: 32 });
    expect(json.files.map((file) => file.path)).toEqual(["/memories/profile.md", "/memories/projects/orion.md"]);
    expect((await run(["memory", "show", "projects/orion.md"])).stdout).toBe("Orion ships in May.\n");

    expect((await run(["memory", "export", "--output", "out.zip"])).stdout).toBe(`wrote ${path.join(temp.dir, "out.zip")}\n`);
    const zip = new AdmZip(path.join(temp.dir, "out.zip"));
    expect(zip.getEntries().map((entry) => entry.entryName).sort()).toEqual(["profile.md", "projects/orion.md"]);

    expect((await run(["memory", "delete", "projects/orion.md"])).stdout).toBe("deleted /memories/projects/orion.md\n");
    const refused = await run(["memory", "forget"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("add --yes");
    expect((await run(["memory", "forget", "--yes"])).stdout).toBe("forgot 1 file of admin's memory\n");
    expect(await MemoryStore.fromConfig(config()).forUser("admin").list()).toEqual([]);
  });

  it("refuses paths outside /memories", async () => {
    for (const bad of ["../x.md", "/etc/passwd", "/memories/../../x", ".hidden"]) {
      const refused = await run(["memory", "show", bad]);
      expect(refused.code, bad).not.toBe(0);
      expect(refused.stderr, bad).toContain("MEMORY_PATH_INVALID");
    }
  });

  it("opens $EDITOR on the file and writes back what it saved", async () => {
    writeTree(temp.dir, { "editor.sh": '#!/bin/sh\nprintf -- "- Likes green tea\\n" >> "$1"\n' });
    fs.chmodSync(path.join(temp.dir, "editor.sh"), 0o755);
    await run(["memory", "edit", "profile.md", "--from", "profile.md"]);
    const edited = await run(["memory", "edit", "profile.md"], { EDITOR: path.join(temp.dir, "editor.sh") });
    expect(edited).toMatchObject({ code: 0, stdout: "wrote /memories/profile.md (30 B)\n" });
    expect((await run(["memory", "show", "profile.md"])).stdout).toBe("- Name: Ada\n- Likes green tea\n");
    const failing = await run(["memory", "edit", "profile.md"], { EDITOR: "false" });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("nothing was written");
  });

  it("settings: shows and sets users.<id>.memory in extensions_config.json", async () => {
    expect((await run(["memory", "settings"])).stdout).toBe("admin: memory on, automatic memory off\n");
    expect((await run(["memory", "settings", "--auto", "on"])).stdout).toBe("admin: memory on, automatic memory on\n");
    expect((await run(["memory", "settings", "--enabled", "off", "--json"])).stdout).toBe(`${JSON.stringify({ user: "admin", enabled: false, auto: false }, null, 2)}\n`);
    expect(JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")).users).toEqual({ admin: { memory: { auto: true, enabled: false } } });
    expect((await run(["memory", "settings", "--auto", "maybe"])).code).toBe(2);
  });

  it("another user's memory needs --user with --reason, and each use is in the audit log", async () => {
    const memory = MemoryStore.fromConfig(config()).forUser("usr_0123abcd");
    await memory.write("/memories/profile.md", "Bea's secret");
    const bare = await run(["memory", "list", "--user", "usr_0123abcd"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--reason");
    expect((await run(["memory", "list"])).stdout).toContain("0 files in admin's memory");
    const shown = await run(["memory", "show", "profile.md", "--user", "usr_0123abcd", "--reason", "support ticket 7"]);
    expect(shown).toMatchObject({ code: 0, stdout: "Bea's secret\n" });
    const identity = await openIdentity(config());
    try {
      const { entries } = await identity.audit.list({ limit: 10 });
      expect(entries).toEqual([expect.objectContaining({ action: "memory.admin_read", target: "usr_0123abcd:/memories/profile.md", source: "cli", detail: { reason: "support ticket 7" } })]);
    } finally {
      await identity.close();
    }
  });
});
