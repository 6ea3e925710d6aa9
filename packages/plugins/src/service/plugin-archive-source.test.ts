import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { buildTarGz, buildZip, ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultFetchOptions, type FetchOptions } from "../fetch/fetch-options.js";
import { PluginManager } from "./plugin-manager.js";

// Marketplace entries `{ source: "archive", url, sha256? }`: archives built here and served by a
// real HTTP server on 127.0.0.1, installed through PluginManager from a marketplace added by name.

const files = new Map<string, Buffer>();
const requests: string[] = [];
let server: http.Server;
let base: string;
let temp: { dir: string; cleanup: () => void };
let managers: PluginManager[];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requests.push(request.url ?? "");
    const body = files.get(request.url ?? "");
    if (!body) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  temp = makeTempDir("tt-archive-source-");
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  managers = [];
  files.clear();
});
afterEach(() => {
  for (const manager of managers) manager.close();
  temp.cleanup();
});

const pluginsDir = (): string => path.join(temp.dir, "plugins");
const sha256 = (bytes: Buffer): string => crypto.createHash("sha256").update(bytes).digest("hex");
const sri = (bytes: Buffer): string => `sha256-${crypto.createHash("sha256").update(bytes).digest("base64")}`;
const pluginJson = (name: string, version = "1.0.0"): string => JSON.stringify({ name, version, description: `${name} plugin` });

function managerWith(fetch: Partial<FetchOptions> = {}): PluginManager {
  const manager = new PluginManager({
    pluginsDir: pluginsDir(),
    store: new ExtensionsStore(path.join(temp.dir, "extensions_config.json")),
    env: {},
    watch: false,
    fetch: { ...defaultFetchOptions, allowHttp: true, ...fetch },
  });
  managers.push(manager);
  return manager;
}

/** Writes a local marketplace with these entries and adds it by name ("shop"). */
async function addMarketplace(manager: PluginManager, plugins: unknown[]): Promise<void> {
  const folder = path.join(temp.dir, "market");
  writeTree(folder, { ".claude-plugin/marketplace.json": JSON.stringify({ name: "shop", owner: { name: "Shop" }, plugins }) });
  await manager.addMarketplace(folder, "shop");
}

async function failure(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error("expected a failure");
}

const installedNames = (): string[] => (fs.existsSync(path.join(pluginsDir(), "installed")) ? fs.readdirSync(path.join(pluginsDir(), "installed")).sort() : []);
const stagingLeft = (): string[] => (fs.existsSync(path.join(pluginsDir(), ".staging")) ? fs.readdirSync(path.join(pluginsDir(), ".staging")) : []);

describe("marketplace plugins from an archive source", () => {
  it("installs a .tar.gz wrapped in one top folder, records its digest, and updates when the archive changes", async () => {
    const first = buildTarGz([
      { name: "tool-1.0.0/.claude-plugin/plugin.json", data: pluginJson("tool") },
      { name: "tool-1.0.0/commands/hello.md", data: "---\ndescription: Says hello\n---\nHello $ARGUMENTS" },
    ]);
    files.set("/dl/tool.tar.gz", first);
    const manager = managerWith();
    await addMarketplace(manager, [{ name: "tool", source: { source: "archive", url: `${base}/dl/tool.tar.gz` } }]);
    const installed = await manager.installFromMarketplace("shop", "tool");
    expect(installed).toMatchObject({ name: "tool", enabled: true, source: { type: "marketplace", marketplaceName: "shop", sourceType: "archive", pinned: { integrity: sri(first) } } });
    // The top folder is the plugin root: its content sits directly in installed/tool.
    expect(fs.readFileSync(path.join(pluginsDir(), "installed", "tool", "commands", "hello.md"), "utf8")).toContain("Hello $ARGUMENTS");
    expect(fs.existsSync(path.join(pluginsDir(), "installed", "tool", "tool-1.0.0"))).toBe(false);
    const stored = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { plugins: Record<string, unknown> };
    expect(stored.plugins.tool).toMatchObject({ enabled: true, installed_from: { marketplace: "shop", plugin: "tool", source_type: "archive", integrity: sri(first) } });
    expect((await manager.get("tool")).versions).toMatchObject({ installed: { integrity: sri(first) }, update_available: false });
    expect(requests).toContain("/dl/tool.tar.gz");

    // The same URL now serves other bytes: `plugins update` fetches them and the pin changes.
    const second = buildTarGz([
      { name: "tool-1.1.0/.claude-plugin/plugin.json", data: pluginJson("tool", "1.1.0") },
      { name: "tool-1.1.0/commands/hello.md", data: "Hi again" },
    ]);
    files.set("/dl/tool.tar.gz", second);
    const updated = await manager.update("tool");
    expect(updated.previous).toMatchObject({ integrity: sri(first) });
    expect(updated.source).toMatchObject({ pinned: { integrity: sri(second) } });
    expect(fs.readFileSync(path.join(pluginsDir(), "installed", "tool", "commands", "hello.md"), "utf8")).toBe("Hi again");
    expect(stagingLeft()).toEqual([]);
  });

  it("installs a .zip whose files sit at its root, pinned by a matching sha256 (either case)", async () => {
    const zip = buildZip([
      { name: ".claude-plugin/plugin.json", data: pluginJson("zipped") },
      { name: "commands/one.md", data: "One" },
      { name: "skills/notes/SKILL.md", data: "---\nname: notes\ndescription: Takes notes\n---\nTake notes." },
    ]);
    files.set("/zipped.zip", zip);
    const manager = managerWith();
    await addMarketplace(manager, [{ name: "zipped", source: { source: "archive", url: `${base}/zipped.zip`, sha256: sha256(zip).toUpperCase() } }]);
    const installed = await manager.installFromMarketplace("shop", "zipped");
    expect(installed).toMatchObject({ name: "zipped", source: { sourceType: "archive", pinned: { integrity: sri(zip) } } });
    expect(fs.readFileSync(path.join(pluginsDir(), "installed", "zipped", "commands", "one.md"), "utf8")).toBe("One");
    expect(fs.existsSync(path.join(pluginsDir(), "installed", "zipped", "skills", "notes", "SKILL.md"))).toBe(true);
    // The entry's sha256 is what the marketplace offers: the same digest, so no update.
    expect((await manager.get("zipped")).versions).toMatchObject({ available: { integrity: sri(zip) }, update_available: false });
  });

  it("refuses an archive whose sha256 is not the pinned one, installing nothing", async () => {
    const tarball = buildTarGz([{ name: "p/.claude-plugin/plugin.json", data: pluginJson("pinned") }]);
    files.set("/pinned.tgz", tarball);
    const manager = managerWith();
    await addMarketplace(manager, [{ name: "pinned", source: { source: "archive", url: `${base}/pinned.tgz`, sha256: "0".repeat(64) } }]);
    const error = await failure(manager.installFromMarketplace("shop", "pinned"));
    expect(error).toMatchObject({ code: "INTEGRITY_MISMATCH", message: expect.stringContaining(sha256(tarball)) });
    expect(installedNames()).toEqual([]);
    expect(stagingLeft()).toEqual([]);
    expect((await manager.list()).plugins).toEqual([]);
    const stored = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { plugins: Record<string, unknown> };
    expect(stored.plugins).toEqual({});
  });

  it("stops an archive larger than plugins.fetch.max_mb, and refuses http:// unless allowed", async () => {
    const big = buildTarGz([
      { name: "big/.claude-plugin/plugin.json", data: pluginJson("big") },
      { name: "big/blob.bin", data: crypto.randomBytes(256 * 1024) },
    ]);
    files.set("/big.tar.gz", big);
    const manager = managerWith({ maxBytes: 64 * 1024 });
    await addMarketplace(manager, [{ name: "big", source: { source: "archive", url: `${base}/big.tar.gz` } }]);
    expect(await failure(manager.installFromMarketplace("shop", "big"))).toMatchObject({ code: "SOURCE_TOO_LARGE", message: expect.stringContaining("plugins.fetch.max_mb") });
    expect(installedNames()).toEqual([]);
    expect(stagingLeft()).toEqual([]);

    const strict = managerWith({ allowHttp: false });
    requests.length = 0;
    expect(await failure(strict.installFromMarketplace("shop", "big"))).toMatchObject({ code: "INVALID_SOURCE", message: expect.stringContaining("https://") });
    expect(requests).toEqual([]);
  });

  it("refuses a command source because it would run a program on this host", async () => {
    const manager = managerWith();
    await addMarketplace(manager, [{ name: "built", source: { source: "command", command: "touch", args: [path.join(temp.dir, "ran")] } }]);
    const error = await failure(manager.installFromMarketplace("shop", "built"));
    expect(error).toMatchObject({ code: "UNSUPPORTED_SOURCE", message: expect.stringContaining("would run a program") });
    expect(error.message).toContain("on this host");
    expect(error.message).not.toContain("cannot fetch");
    expect(fs.existsSync(path.join(temp.dir, "ran"))).toBe(false);
    expect(installedNames()).toEqual([]);
  });
});
