import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { PluginSnapshotter } from "@thinktank/plugins";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeServerEntries } from "./runtime-server-entries.js";

const temp = makeTempDir("tt-server-entries-");
writeTree(temp.dir, {
  "extensions_config.json": JSON.stringify({ mcpServers: { local: { command: "node", args: ["a.js"] } }, skills: {}, plugins: {}, tools: {} }),
  "plugins/installed/acme/.claude-plugin/plugin.json": JSON.stringify({ name: "acme" }),
  "plugins/installed/acme/.mcp.json": JSON.stringify({ mcpServers: { docs: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/docs.js"] } } }),
});
const store = new ExtensionsStore(path.join(temp.dir, "extensions_config.json"));
const plugins = new PluginSnapshotter({ pluginsDir: path.join(temp.dir, "plugins"), settings: store, env: {}, watch: false });
const source = runtimeServerEntries(store, plugins);
afterAll(() => {
  plugins.close();
  temp.cleanup();
});

describe("runtimeServerEntries", () => {
  it("merges configured and plugin servers, and keeps the same object while the entries are the same", async () => {
    const first = await source.read();
    expect(Object.keys(first).sort()).toEqual(["acme:docs", "local"]);
    expect(first["acme:docs"]).toMatchObject({ args: [path.join(temp.dir, "plugins/installed/acme", "docs.js")] });
    expect(await source.read()).toBe(first);
    // A change elsewhere (a skill switched off) is a new revision but the same servers: no sync needed.
    await store.update((draft) => {
      (draft.skills as Record<string, unknown>)["public:x"] = { enabled: false };
    });
    expect(await source.read()).toBe(first);
  });

  it("gives a new object when a server changes, and drops a disabled plugin's servers", async () => {
    const before = await source.read();
    await store.update((draft) => {
      (draft.mcpServers as Record<string, unknown>).remote = { type: "http", url: "http://127.0.0.1:1/mcp" };
    });
    const added = await source.read();
    expect(added).not.toBe(before);
    expect(Object.keys(added).sort()).toEqual(["acme:docs", "local", "remote"]);
    await store.update((draft) => {
      (draft.plugins as Record<string, unknown>).acme = { enabled: false };
    });
    expect(Object.keys(await source.read()).sort()).toEqual(["local", "remote"]);
  });

  it("answers a user's own remote servers as ~<name>, never a stdio one, and the same object while they are unchanged", async () => {
    await store.update((draft) => {
      draft.users = { usr_a: { mcpServers: { notes: { type: "http", url: "http://127.0.0.1:1/mcp" }, shell: { command: "sh", args: ["-c", "id"] } } } };
    });
    const mine = await source.readUser?.("usr_a");
    expect(mine).toEqual({ "~notes": { type: "http", url: "http://127.0.0.1:1/mcp" } });
    expect(await source.readUser?.("usr_b")).toEqual({});
    // The shared servers do not include them.
    expect(Object.keys(await source.read())).not.toContain("~notes");
    await store.update((draft) => {
      (draft.skills as Record<string, unknown>)["public:y"] = { enabled: false };
    });
    expect(await source.readUser?.("usr_a")).toBe(mine);
  });
});
