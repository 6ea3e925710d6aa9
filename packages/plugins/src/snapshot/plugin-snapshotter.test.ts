import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PluginInstaller } from "../install/plugin-installer.js";
import { PluginSnapshotter } from "./plugin-snapshotter.js";

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let installer: PluginInstaller;
let pluginsDir: string;
let snapshotters: PluginSnapshotter[] = [];

beforeEach(() => {
  temp = makeTempDir("tt-plugin-snapshot-");
  pluginsDir = path.join(temp.dir, "plugins");
  const file = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { "sales:crm": { type: "http", url: "https://configured.example" } }, skills: {}, plugins: {}, tools: {} }));
  store = new ExtensionsStore(file);
  installer = new PluginInstaller({ pluginsDir, store });
});
afterEach(() => {
  for (const snapshotter of snapshotters) snapshotter.close();
  snapshotters = [];
  temp.cleanup();
});

function makeSnapshotter(watch = true): PluginSnapshotter {
  const snapshotter = new PluginSnapshotter({ pluginsDir, settings: store, env: { TOKEN: "t" }, watch });
  snapshotters.push(snapshotter);
  return snapshotter;
}

async function installSample(name: string, files: Record<string, string> = {}): Promise<void> {
  const root = path.join(temp.dir, "sources", name);
  writeTree(root, {
    ".claude-plugin/plugin.json": JSON.stringify({ name }),
    "commands/brief.md": `Brief from ${name}: $ARGUMENTS`,
    "skills/research/SKILL.md": `---\nname: research\ndescription: Research for ${name}\n---\nResearch $ARGUMENTS`,
    ".mcp.json": JSON.stringify({ crm: { type: "http", url: "https://crm.example/mcp", headers: { Authorization: "Bearer ${TOKEN}" } } }),
    ...files,
  });
  await installer.installPath(root);
}

describe("PluginSnapshotter", () => {
  it("gives the enabled plugins' skill sources, commands and namespaced servers", async () => {
    await installSample("sales");
    await installSample("legal");
    const snapshot = await makeSnapshotter().snapshot();
    expect(snapshot.plugins.map((p) => p.name)).toEqual(["legal", "sales"]);
    expect(snapshot.skillSources).toEqual([
      { category: "plugin:legal", root: path.join(pluginsDir, "installed/legal/skills"), containerPrefix: "plugins/legal" },
      { category: "plugin:sales", root: path.join(pluginsDir, "installed/sales/skills"), containerPrefix: "plugins/sales" },
    ]);
    expect(snapshot.commands.entries.map((e) => e.invocation)).toEqual(["/legal:brief", "/legal:research", "/sales:brief", "/sales:research"]);
    expect(Object.keys(snapshot.servers.entries)).toEqual(["legal:crm"]);
    expect(snapshot.servers.conflicts.map((c) => c.name)).toEqual(["sales:crm"]);
    expect(snapshot.revision).toBe((await store.read()).revision);
  });

  it("returns the very same snapshot while nothing changes", async () => {
    await installSample("sales");
    const snapshotter = makeSnapshotter();
    const first = await snapshotter.snapshot();
    expect(await snapshotter.snapshot()).toBe(first);
    expect(await snapshotter.snapshot()).toBe(first);
  });

  it("drops a disabled plugin's skills, commands and servers on the next snapshot, and brings them back", async () => {
    await installSample("sales");
    await installSample("legal");
    const snapshotter = makeSnapshotter();
    await snapshotter.snapshot();
    await installer.updateSettings("legal", { enabled: false });
    const after = await snapshotter.snapshot();
    expect(after.plugins.map((p) => p.name)).toEqual(["sales"]);
    expect(after.disabled).toEqual(["legal"]);
    expect(after.skillSources.map((s) => s.category)).toEqual(["plugin:sales"]);
    expect(after.commands.resolve("/legal:brief x").kind).toBe("error");
    expect(after.commands.resolve("/brief x").kind).toBe("expanded");
    expect(Object.keys(after.servers.entries)).toEqual([]);
    await installer.updateSettings("legal", { enabled: true });
    expect((await snapshotter.snapshot()).plugins.map((p) => p.name)).toEqual(["legal", "sales"]);
  });

  it("sees installs and uninstalls made by another process on the next snapshot", async () => {
    const snapshotter = makeSnapshotter();
    expect((await snapshotter.snapshot()).plugins).toEqual([]);
    await installSample("sales");
    expect((await snapshotter.snapshot()).plugins.map((p) => p.name)).toEqual(["sales"]);
    await installer.uninstall("sales");
    const after = await snapshotter.snapshot();
    expect(after.plugins).toEqual([]);
    expect(after.commands.entries).toEqual([]);
  });

  it("notices a file edited in place without a store change (watcher), and in walk mode", async () => {
    await installSample("sales");
    for (const watch of [true, false]) {
      const snapshotter = makeSnapshotter(watch);
      await snapshotter.snapshot();
      const file = path.join(pluginsDir, "installed/sales/commands/brief.md");
      fs.writeFileSync(file, `Edited ${String(watch)}: $ARGUMENTS`);
      // The watcher's event comes when it comes: snapshots are taken until one shows the edit.
      await expect
        .poll(
          async () => {
            const result = (await snapshotter.snapshot()).commands.resolve("/sales:brief now");
            return result.kind === "expanded" ? result.text : result.kind;
          },
          { timeout: 20_000, interval: 25 },
        )
        .toBe(`Edited ${String(watch)}: now`);
    }
  });

  it("leaves out a plugin broken by hand, reporting why", async () => {
    await installSample("sales");
    await installSample("legal");
    fs.writeFileSync(path.join(pluginsDir, "installed/legal/.mcp.json"), "{ broken");
    await store.touch();
    const snapshot = await makeSnapshotter().snapshot();
    expect(snapshot.plugins.map((p) => p.name)).toEqual(["sales"]);
    expect(snapshot.invalid).toEqual([{ name: "legal", problems: [expect.objectContaining({ file: ".mcp.json", severity: "error" })] }]);
  });

  it("uses the folder name when a manifest was edited to another name", async () => {
    await installSample("sales");
    fs.writeFileSync(path.join(pluginsDir, "installed/sales/.claude-plugin/plugin.json"), JSON.stringify({ name: "renamed" }));
    const snapshot = await makeSnapshotter().snapshot();
    expect(snapshot.invalid[0]?.name).toBe("sales");
    expect(snapshot.invalid[0]?.problems[0]?.message).toContain("names the plugin 'renamed' but it is installed as 'sales'");
  });
});
