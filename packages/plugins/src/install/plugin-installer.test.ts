import fs from "node:fs";
import path from "node:path";
import { buildZip, ExtensionsStore, type ThinktankError } from "@thinktank/core";
import { corpusDir, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PluginInstaller } from "./plugin-installer.js";

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let installer: PluginInstaller;
let pluginsDir: string;

beforeEach(() => {
  temp = makeTempDir("tt-plugin-install-");
  pluginsDir = path.join(temp.dir, "plugins");
  const file = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  store = new ExtensionsStore(file);
  installer = new PluginInstaller({ pluginsDir, store });
});
afterEach(() => temp.cleanup());

const installed = (): string[] => (fs.existsSync(path.join(pluginsDir, "installed")) ? fs.readdirSync(path.join(pluginsDir, "installed")).sort() : []);
const leftovers = (): string[] => (fs.existsSync(path.join(pluginsDir, ".staging")) ? fs.readdirSync(path.join(pluginsDir, ".staging")) : []);

async function failure(promise: Promise<unknown>): Promise<ThinktankError> {
  try {
    await promise;
  } catch (error) {
    return error as ThinktankError;
  }
  throw new Error("expected the install to fail");
}

function source(files: Record<string, string>, name = "demo"): string {
  const root = path.join(temp.dir, "sources", name);
  writeTree(root, files);
  return root;
}

const demo = {
  ".claude-plugin/plugin.json": JSON.stringify({ name: "demo", version: "1.0.0" }),
  "commands/hi.md": "---\ndescription: Say hi\n---\nHi $ARGUMENTS",
  "skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets\n---\nbody",
  ".mcp.json": JSON.stringify({ mcpServers: { api: { type: "http", url: "https://example.com/mcp" } } }),
};

describe("PluginInstaller", () => {
  it("installs a folder: copied into installed/<name>, enabled in the store, revision bumped, nothing left in staging", async () => {
    const before = (await store.read()).revision;
    const result = await installer.installPath(source(demo));
    expect(result.plugin.name).toBe("demo");
    expect(result.plugin.root).toBe(path.join(pluginsDir, "installed", "demo"));
    expect(result.plugin.commands.map((c) => c.name)).toEqual(["hi"]);
    expect(installed()).toEqual(["demo"]);
    const after = await store.read();
    expect(after.document.plugins).toEqual({ demo: { enabled: true } });
    expect(after.revision).toBe(before + 1);
    expect(leftovers()).toEqual([]);
    expect(result.source).toEqual({ type: "path", path: path.join(temp.dir, "sources", "demo") });
  });

  it("installs an uploaded zip of the plugin's folder, and one without a manifest named after that folder", async () => {
    const zip = buildZip(Object.entries(demo).map(([name, data]) => ({ name: `demo-1.0/${name}`, data })));
    expect((await installer.installArchive(zip, "upload.zip")).plugin.name).toBe("demo");
    const bare = buildZip([{ name: "notes-tool/" }, { name: "notes-tool/commands/note.md", data: "Take a note" }, { name: "__MACOSX/._x", data: "junk" }]);
    const result = await installer.installArchive(bare, "whatever.zip");
    expect(result.plugin).toMatchObject({ name: "notes-tool", manifestSource: "folder" });
    expect(installed()).toEqual(["demo", "notes-tool"]);
  });

  it("installs a zip file on the server, named after the file when the zip has no single folder", async () => {
    const zipFile = path.join(temp.dir, "flat-tool.zip");
    fs.writeFileSync(zipFile, buildZip([{ name: "commands/a.md", data: "A" }, { name: "commands/b.md", data: "B" }]));
    expect((await installer.installPath(zipFile)).plugin.name).toBe("flat-tool");
  });

  it("answers 409 PLUGIN_NAME_CONFLICT and keeps the installed plugin as it was", async () => {
    await installer.installPath(source(demo));
    const marker = path.join(pluginsDir, "installed", "demo", "commands", "hi.md");
    const revision = (await store.read()).revision;
    const error = await failure(installer.installPath(source({ ...demo, "commands/hi.md": "changed" }, "demo-again")));
    expect(error.code).toBe("PLUGIN_NAME_CONFLICT");
    expect(fs.readFileSync(marker, "utf8")).toContain("Say hi");
    expect((await store.read()).revision).toBe(revision);
    expect(leftovers()).toEqual([]);
  });

  it("refuses invalid plugins with every reason, leaving nothing behind", async () => {
    const error = await failure(
      installer.installPath(source({ ".claude-plugin/plugin.json": JSON.stringify({ name: "bad", commands: "../../etc" }), "agents/a.md": "---\nname: unclosed\n" }, "bad")),
    );
    expect(error.code).toBe("INVALID_PLUGIN");
    expect(error.message).toContain("leads outside the plugin");
    expect(error.message).toContain("agents/a.md");
    expect((error.details?.problems as unknown[]).length).toBe(2);
    expect(await failure(installer.installArchive(buildZip([{ name: "README.md", data: "hello" }]), "x.zip"))).toMatchObject({ code: "INVALID_PLUGIN", message: expect.stringContaining("not a plugin") });
    expect(installed()).toEqual([]);
    expect(leftovers()).toEqual([]);
    expect((await store.read()).document.plugins).toEqual({});
  });

  it.each([
    ["a symlink", "ARCHIVE_SYMLINK", [{ name: "p/commands/link.md", unixMode: 0o120777, data: "/etc/passwd" }]],
    ["a '..' entry", "ARCHIVE_PATH_TRAVERSAL", [{ name: "p/../../evil.md", data: "x" }]],
    ["an absolute entry", "ARCHIVE_ABSOLUTE_PATH", [{ name: "/etc/evil.md", data: "x" }]],
    ["a FIFO", "ARCHIVE_SPECIAL_FILE", [{ name: "p/commands/fifo", unixMode: 0o010644 }]],
    ["a lying size", "ARCHIVE_CORRUPT", [{ name: "p/commands/a.md", data: "hello", declaredSize: 2 }]],
    ["a bomb", "ARCHIVE_COMPRESSION_RATIO", [{ name: "p/commands/big.md", data: Buffer.alloc(8 * 1024 * 1024, 0x61) }]],
  ] as const)("refuses an archive with %s (%s) and leaves nothing behind", async (_label, code, entries) => {
    const error = await failure(installer.installArchive(buildZip(entries), "hostile.zip"));
    expect(error.code).toBe(code);
    expect(installed()).toEqual([]);
    expect(leftovers()).toEqual([]);
    expect(fs.existsSync(path.join(temp.dir, "evil.md"))).toBe(false);
  });

  it("refuses what is not a zip, and too many entries", async () => {
    expect((await failure(installer.installArchive(Buffer.from("not a zip at all"), "x.zip"))).code).toBe("ARCHIVE_NOT_ZIP");
    const small = new PluginInstaller({ pluginsDir, store, limits: { maxEntries: 3, maxTotalBytes: 1e6, maxFileBytes: 1e6, maxCompressionRatio: 200, ratioFloorBytes: 1e5 } });
    const many = buildZip(Array.from({ length: 5 }, (_, i) => ({ name: `commands/c${i}.md`, data: "x" })));
    expect((await failure(small.installArchive(many, "many.zip"))).code).toBe("ARCHIVE_TOO_MANY_ENTRIES");
    expect(leftovers()).toEqual([]);
  });

  it("refuses a folder holding a symlink that leads outside it", async () => {
    const root = source(demo, "linked");
    fs.symlinkSync("/etc/passwd", path.join(root, "commands", "passwd.md"));
    expect((await failure(installer.installPath(root))).code).toBe("ARCHIVE_SYMLINK");
    expect(installed()).toEqual([]);
  });

  it("enables, disables and uninstalls, bumping the revision each time", async () => {
    await installer.installPath(source(demo));
    const r1 = (await store.read()).revision;
    expect(await installer.updateSettings("demo", { enabled: false })).toEqual({ name: "demo", revision: r1 + 1 });
    expect((await store.read()).document.plugins.demo).toEqual({ enabled: false });
    await installer.updateSettings("demo", { enabled: true });
    expect(await installer.uninstall("demo")).toEqual({ name: "demo", revision: r1 + 3 });
    expect(installed()).toEqual([]);
    expect((await store.read()).document.plugins).toEqual({});
    expect(leftovers()).toEqual([]);
    for (const attempt of [installer.uninstall("demo"), installer.updateSettings("demo", { enabled: true }), installer.uninstall("../x")]) {
      expect((await failure(attempt)).code).toBe("PLUGIN_NOT_FOUND");
    }
  });

  it("records trust on install and on request; a new install of a name forgets an earlier plugin's trust, an update keeps it", async () => {
    await store.update((draft) => {
      // Left from an earlier plugin named demo (edited by hand): none of it may trust the new code.
      draft.plugins.demo = { enabled: true, trusted: true, scripts_approved: true };
      draft.skills["plugin:demo:helper"] = { enabled: true, trusted: true, scripts_approved: true };
      draft.skills["plugin:demo2:helper"] = { enabled: true, trusted: true };
    });
    await installer.installPath(source(demo));
    let document = (await store.read()).document;
    expect(document.plugins.demo).toEqual({ enabled: true });
    expect(document.skills["plugin:demo:helper"]).toEqual({ enabled: true });
    expect(document.skills["plugin:demo2:helper"]).toEqual({ enabled: true, trusted: true });
    await installer.updateSettings("demo", { scriptsApproved: true });
    expect((await store.read()).document.plugins.demo).toEqual({ enabled: true, scripts_approved: true });
    await installer.updateSettings("demo", { trusted: true, enabled: false });
    expect((await store.read()).document.plugins.demo).toEqual({ enabled: false, trusted: true, scripts_approved: true });
    await installer.uninstall("demo");
    await installer.installPath(source(demo), { trusted: true });
    document = (await store.read()).document;
    expect(document.plugins.demo).toEqual({ enabled: true, trusted: true });
  });

  it("puts the folder back when the store refuses the write", async () => {
    const failing = {
      update: async (mutate: (draft: never, current: never) => unknown) => {
        await mutate({ plugins: {} } as never, {} as never);
        throw new Error("disk full");
      },
    } as unknown as ExtensionsStore;
    const broken = new PluginInstaller({ pluginsDir, store: failing });
    await expect(broken.installPath(source(demo))).rejects.toThrow("disk full");
    expect(installed()).toEqual([]);
    expect(leftovers()).toEqual([]);
    await installer.installPath(source(demo, "demo2"));
    await expect(broken.uninstall("demo")).rejects.toThrow("disk full");
    expect(installed()).toEqual(["demo"]);
  });
});

describe("PluginInstaller from a marketplace", () => {
  it("installs a relative source, a bare name under metadata.pluginRoot, and fills the manifest from the entry", async () => {
    const market = path.join(temp.dir, "market");
    writeTree(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "team",
        owner: { name: "Team" },
        metadata: { pluginRoot: "./plugins" },
        plugins: [
          { name: "alpha", source: "./plugins/alpha", version: "2.0.0", description: "from the entry" },
          { name: "beta", source: "beta", strict: false, commands: ["./extra/go.md"] },
          { name: "escape", source: "../outside" },
          { name: "remote", source: { source: "github", repo: "acme/remote" } },
          { name: "npm-one", source: { source: "npm", package: "@acme/plugin" } },
        ],
      }),
      "plugins/alpha/.claude-plugin/plugin.json": JSON.stringify({ name: "alpha", description: "own description" }),
      "plugins/alpha/commands/a.md": "A",
      "plugins/beta/extra/go.md": "Go",
    });
    const alpha = await installer.installFromMarketplace(market, "alpha");
    expect(alpha.plugin.manifest).toEqual({ name: "alpha", description: "own description", version: "2.0.0" });
    expect(alpha.source).toMatchObject({ type: "marketplace", marketplaceName: "team", plugin: "alpha", sourceType: "relative" });
    const beta = await installer.installFromMarketplace(path.join(market, ".claude-plugin/marketplace.json"), "beta");
    expect(beta.plugin.manifest).toEqual({ name: "beta", commands: ["./extra/go.md"] });
    expect(beta.plugin.commands.map((c) => c.name)).toEqual(["go"]);
    expect(await failure(installer.installFromMarketplace(market, "escape"))).toMatchObject({ code: "INVALID_MARKETPLACE", message: expect.stringContaining("does not exist") });
    const github = await failure(installer.installFromMarketplace(market, "remote"));
    expect(github).toMatchObject({ code: "UNSUPPORTED_SOURCE", message: expect.stringContaining("'github' source") });
    expect((await failure(installer.installFromMarketplace(market, "npm-one"))).message).toContain("'npm' source");
    expect(await failure(installer.installFromMarketplace(market, "alpah"))).toMatchObject({ code: "PLUGIN_NOT_FOUND", message: expect.stringContaining("did you mean alpha") });
    expect(installed()).toEqual(["alpha", "beta"]);
    expect(leftovers()).toEqual([]);
  });

  it("refuses a strict: false entry whose plugin.json declares components too", async () => {
    const market = path.join(temp.dir, "market2");
    writeTree(market, {
      "marketplace.json": JSON.stringify({ name: "m", plugins: [{ name: "p", source: "./p", strict: false, skills: ["./skills"] }] }),
      "p/.claude-plugin/plugin.json": JSON.stringify({ name: "p", commands: "./commands" }),
      "p/commands/x.md": "x",
    });
    expect(await failure(installer.installFromMarketplace(market, "p"))).toMatchObject({ code: "INVALID_PLUGIN", message: expect.stringContaining("strict: false") });
    expect(installed()).toEqual([]);
  });

  it("refuses a marketplace that is not one", async () => {
    writeTree(temp.dir, { "m1/marketplace.json": "{ nope", "m2/marketplace.json": JSON.stringify({ plugins: {} }) });
    expect(await failure(installer.installFromMarketplace(path.join(temp.dir, "m1"), "x"))).toMatchObject({ code: "INVALID_MARKETPLACE" });
    expect((await failure(installer.installFromMarketplace(path.join(temp.dir, "m2"), "x"))).message).toMatch(/'name' must be a non-empty string.*'plugins' must be a list/);
    expect((await failure(installer.installFromMarketplace(path.join(temp.dir, "none"), "x"))).code).toBe("NOT_FOUND");
  });

  it("installs from the corpus marketplaces and names the types it cannot fetch", needs("corpus"), async () => {
    const kwp = path.join(corpusDir(), "knowledge-work-plugins");
    expect((await installer.installFromMarketplace(kwp, "slack-by-salesforce")).plugin.name).toBe("slack-by-salesforce");
    const brand = path.join(kwp, "partner-built", "brand-voice");
    const result = await installer.installFromMarketplace(brand, "brand-voice");
    expect(result.plugin.manifest.version).toBe("1.1.0");
    expect(fs.readFileSync(path.join(result.plugin.root, ".claude-plugin/plugin.json"), "utf8")).toBe(fs.readFileSync(path.join(brand, ".claude-plugin/plugin.json"), "utf8"));
    expect((await failure(installer.installFromMarketplace(kwp, "tavily"))).message).toContain("'url' source");
    expect((await failure(installer.installFromMarketplace(kwp, "bigdata-com"))).message).toContain("'git-subdir' source");
    const skills = await failure(installer.installFromMarketplace(path.join(corpusDir(), "anthropic-skills"), "example-skills"));
    expect(skills).toMatchObject({ code: "INVALID_PLUGIN", message: expect.stringContaining(`'skills' path "./skills/algorithmic-art" does not exist`) });
    expect(installed()).toEqual(["brand-voice", "slack-by-salesforce"]);
    expect(leftovers()).toEqual([]);
  });
});
