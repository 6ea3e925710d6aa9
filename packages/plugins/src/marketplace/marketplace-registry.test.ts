import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { makeTempDir, startGitHttpServer, startNpmRegistryServer, writeTree, type GitHttpServer, type NpmRegistryServer } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultFetchOptions, type FetchOptions } from "../fetch/fetch-options.js";
import { MarketplaceRegistry } from "./marketplace-registry.js";

let servers: { dir: string; cleanup: () => void };
let git: GitHttpServer;
let registry: NpmRegistryServer;
let temp: { dir: string; cleanup: () => void };
let file: string;

const marketplace = (name: string, plugins: unknown[] = [{ name: "notes", source: "./notes" }]): string => JSON.stringify({ name, plugins });
const fetchOptions = (env: Record<string, string> = {}): FetchOptions => ({ ...defaultFetchOptions, githubUrl: git.url, npmRegistry: registry.url, allowHttp: true, env: { PATH: process.env.PATH ?? "", ...env } });
const registryWith = (env: Record<string, string> = {}): MarketplaceRegistry =>
  new MarketplaceRegistry({ pluginsDir: path.join(temp.dir, "plugins"), store: new ExtensionsStore(file), fetch: fetchOptions(env), baseDir: temp.dir, now: () => new Date("2026-01-02T03:04:05Z") });

beforeAll(async () => {
  servers = makeTempDir("tt-registry-servers-");
  git = await startGitHttpServer(path.join(servers.dir, "git"));
  registry = await startNpmRegistryServer();
});
afterAll(async () => {
  await git.close();
  await registry.close();
  servers.cleanup();
});
beforeEach(() => {
  temp = makeTempDir("tt-registry-");
  file = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
});
afterEach(() => temp.cleanup());

describe("MarketplaceRegistry", () => {
  it("keeps the old copy and pin when an update brings something that is not a marketplace", async () => {
    const first = git.commit("acme/rollback", { ".claude-plugin/marketplace.json": marketplace("acme"), "notes/commands/n.md": "n" });
    const markets = registryWith();
    expect(await markets.add("acme/rollback")).toMatchObject({ name: "acme", pinned: { commit: first }, updated_at: "2026-01-02T03:04:05.000Z" });
    git.commit("acme/rollback", { ".claude-plugin/marketplace.json": "{ broken" });
    await expect(markets.update("acme")).rejects.toMatchObject({ code: "INVALID_MARKETPLACE" });
    expect((await markets.get("acme")).view).toMatchObject({ pinned: { commit: first }, plugins: 1 });
    expect(fs.readFileSync(path.join(markets.folder("acme"), ".claude-plugin", "marketplace.json"), "utf8")).toBe(marketplace("acme"));
    expect(fs.readdirSync(path.join(temp.dir, "plugins", ".staging"))).toEqual([]);
    await markets.remove("acme");
    expect(fs.existsSync(markets.folder("acme"))).toBe(false);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).marketplaces).toEqual({});
  });

  it("adds a marketplace published on npm, pinned to its version and integrity", async () => {
    const folder = path.join(temp.dir, "pkg");
    writeTree(folder, { "package.json": JSON.stringify({ name: "@acme/market", version: "1.2.0" }), ".claude-plugin/marketplace.json": marketplace("npm-market"), "notes/commands/n.md": "n" });
    const published = registry.publish(folder);
    const added = await registryWith().add("npm:@acme/market@1.2.0");
    expect(added).toMatchObject({ name: "npm-market", source: { source: "npm", package: "@acme/market", version: "1.2.0" }, pinned: { version: "1.2.0", integrity: published.integrity }, plugins: 1 });
  });

  it("signs in to the configured GitHub URL with GITHUB_TOKEN, sends it nowhere else, and stores it nowhere", async () => {
    git.commit("acme/private", { ".claude-plugin/marketplace.json": marketplace("private") });
    const token = "ghs_testtoken1234567890";
    const markets = registryWith({ GITHUB_TOKEN: token });
    const before = git.authorizations.length;
    await markets.add("acme/private");
    const sent = git.authorizations.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((header) => header === `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`)).toBe(true);
    const other = git.authorizations.length;
    await markets.add(`${git.url.replace("127.0.0.1", "localhost")}/acme/private.git`, "elsewhere");
    expect(git.authorizations.slice(other).every((header) => header === undefined)).toBe(true);
    expect(fs.readFileSync(file, "utf8")).not.toContain(token);
    expect(fs.readFileSync(file, "utf8")).not.toContain(Buffer.from(`x-access-token:${token}`).toString("base64"));
  });

  it("reads what users type as sources", async () => {
    const markets = registryWith();
    await expect(markets.add("acme/missing#v1")).rejects.toMatchObject({ code: "SOURCE_FETCH_FAILED" });
    await expect(markets.add("./nowhere")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(markets.add("acme/x#--upload-pack=y")).rejects.toMatchObject({ code: "INVALID_SOURCE" });
    await expect(markets.add({ source: "svn", url: "x" })).rejects.toMatchObject({ code: "INVALID_SOURCE" });
    await expect(markets.get("nope")).rejects.toMatchObject({ code: "MARKETPLACE_NOT_FOUND" });
  });
});
