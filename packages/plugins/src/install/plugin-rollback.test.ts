import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PluginInstaller } from "./plugin-installer.js";

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let installer: PluginInstaller;
let pluginsDir: string;
let market: string;

const version = (): unknown => JSON.parse(fs.readFileSync(path.join(pluginsDir, "installed", "demo", ".claude-plugin", "plugin.json"), "utf8")).version;
const entry = async (): Promise<Record<string, unknown>> => (await store.read()).document.plugins.demo as unknown as Record<string, unknown>;
const publish = (v: string): void =>
  writeTree(market, {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "m", plugins: [{ name: "demo", source: "./demo" }] }),
    "demo/.claude-plugin/plugin.json": JSON.stringify({ name: "demo", version: v }),
    "demo/commands/hello.md": `Say hello (${v}).\n`,
  });

beforeEach(() => {
  temp = makeTempDir("tt-plugin-rollback-");
  pluginsDir = path.join(temp.dir, "plugins");
  market = path.join(temp.dir, "market");
  const file = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  store = new ExtensionsStore(file);
  installer = new PluginInstaller({ pluginsDir, store });
});
afterEach(() => temp.cleanup());

describe("plugin rollback", () => {
  it("keeps the version an update replaced and swaps it back (twice: there and back), with its install record", async () => {
    publish("1.0.0");
    await installer.installFromMarketplace(market, "demo", { marketplaceName: "m", marketplacePinned: { commit: "a".repeat(40) } });
    await expect(installer.rollback("demo")).rejects.toMatchObject({ code: "CONFLICT" });
    publish("2.0.0");
    await installer.updateSettings("demo", { trusted: true });
    await installer.updateFromMarketplace("demo", market, "demo", { marketplaceName: "m", marketplacePinned: { commit: "b".repeat(40) } });
    expect(version()).toBe("2.0.0");
    expect(await entry()).toMatchObject({ trusted: true, installed_from: { commit: "b".repeat(40) }, rollback: { installed_from: { commit: "a".repeat(40) } } });

    await installer.rollback("demo");
    expect(version()).toBe("1.0.0");
    expect(await entry()).toMatchObject({ trusted: true, installed_from: { commit: "a".repeat(40) }, rollback: { installed_from: { commit: "b".repeat(40) } } });
    await installer.rollback("demo");
    expect(version()).toBe("2.0.0");
    expect(fs.readdirSync(path.join(pluginsDir, ".staging"))).toEqual([]);

    await installer.uninstall("demo");
    expect(fs.existsSync(path.join(pluginsDir, "previous", "demo"))).toBe(false);
  });

  it("refuses a kept copy that no longer loads, leaving the installed version in place", async () => {
    publish("1.0.0");
    await installer.installFromMarketplace(market, "demo");
    publish("2.0.0");
    await installer.updateFromMarketplace("demo", market, "demo");
    fs.writeFileSync(path.join(pluginsDir, "previous", "demo", ".claude-plugin", "plugin.json"), "{ broken");
    await expect(installer.rollback("demo")).rejects.toMatchObject({ code: "INVALID_PLUGIN" });
    expect(version()).toBe("2.0.0");
    expect(fs.existsSync(path.join(pluginsDir, "previous", "demo"))).toBe(true);
    // A fresh install after removal starts with nothing to roll back to, even if a kept copy were left behind.
    await installer.uninstall("demo");
    await installer.installFromMarketplace(market, "demo");
    fs.cpSync(path.join(pluginsDir, "installed", "demo"), path.join(pluginsDir, "previous", "demo"), { recursive: true });
    await expect(installer.rollback("demo")).rejects.toMatchObject({ code: "CONFLICT" });
  });
});
