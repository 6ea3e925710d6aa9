import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { corpusDir, makeTempDir, needs, startFloodServer, startGitHttpServer, startHangingServer, startNpmRegistryServer, type GitHttpServer, type NpmRegistryServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

// Marketplaces and plugins from every source type, fetched by the code that talks to GitHub and
// npmjs: here from a real git server (git http-backend) and a registry on 127.0.0.1, with
// repositories and packages built from corpus copies at test time.
let serverDir: { dir: string; cleanup: () => void };
let git: GitHttpServer;
let registry: NpmRegistryServer;
let gateway: TestGateway;
let marketCommit: string;

const corpus = (relative: string): { from: string } => ({ from: path.join(corpusDir(), "knowledge-work-plugins", relative) });
const pluginJson = (relative: string, changes: Record<string, unknown>): string =>
  JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(corpusDir(), "knowledge-work-plugins", relative, ".claude-plugin/plugin.json"), "utf8")), ...changes }, null, 2);

/** An answer body as JSON.parse gives it (tests read its fields directly). */
type ParsedJson = ReturnType<typeof JSON.parse>;

async function call(method: "GET" | "POST" | "DELETE", url: string, payload?: unknown): Promise<{ status: number; body: ParsedJson }> {
  const response = await gateway.app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: response.statusCode, body: response.body ? (response.json() as ParsedJson) : {} };
}

describe("marketplaces from git and npm", needs("corpus"), () => {
  beforeAll(async () => {
    serverDir = makeTempDir("tt-market-servers-");
    git = await startGitHttpServer(path.join(serverDir.dir, "git"));
    registry = await startNpmRegistryServer();
    git.commit("partners/brand-voice", { ".": corpus("partner-built/brand-voice") });
    git.commit("partners/slack", { ".": corpus("partner-built/slack"), "AGENTS.md": { link: "CLAUDE.md" } });
    git.commit("partners/monorepo", { "plugins/common-room": corpus("partner-built/common-room"), "README.md": "monorepo" });
    const apollo = path.join(serverDir.dir, "apollo");
    fs.cpSync(corpus("partner-built/apollo").from, apollo, { recursive: true });
    fs.writeFileSync(path.join(apollo, "package.json"), JSON.stringify({ name: "@partners/apollo", version: "0.1.0" }));
    registry.publish(apollo);
    const plugins = [
      { name: "sales", source: "./sales" },
      { name: "brand-voice", source: { source: "github", repo: "partners/brand-voice" } },
      { name: "slack-by-salesforce", source: { source: "url", url: `${git.url}/partners/slack.git` } },
      { name: "common-room", source: { source: "git-subdir", url: `${git.url}/partners/monorepo.git`, path: "plugins/common-room" } },
      { name: "apollo", source: { source: "npm", package: "@partners/apollo", version: "0.1.0" } },
      { name: "evil-ext", source: { source: "url", url: "ext::sh -c touch% /tmp/tt-pwned" } },
      { name: "evil-option", source: { source: "url", url: "--upload-pack=touch /tmp/tt-pwned" } },
      { name: "evil-path", source: { source: "git-subdir", url: `${git.url}/partners/monorepo.git`, path: "../../etc" } },
    ];
    marketCommit = git.commit("acme/marketplace", { ".claude-plugin/marketplace.json": JSON.stringify({ name: "acme-plugins", owner: { name: "Acme" }, plugins }), sales: corpus("sales") });
    const configYaml = `log:\n  level: warn\nplugins:\n  fetch:\n    github_url: ${git.url}\n    npm_registry: ${registry.url}\n    allow_http: true\n    timeout_seconds: 5\n    max_mb: 20\n`;
    gateway = await createTestGateway({ configYaml });
  });
  afterAll(async () => {
    await gateway?.close();
    await git?.close();
    await registry?.close();
    serverDir?.cleanup();
  });

  it("adds a marketplace from owner/repo (GitHub, pinned to the exact commit), lists it, and browses its plugins", async () => {
    const added = await call("POST", "/api/marketplaces", { source: "acme/marketplace", name: "team" });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: "team", source: { source: "github", repo: "acme/marketplace" }, pinned: { commit: marketCommit }, plugins: 8, owner: { name: "Acme" } });
    const stored = JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { marketplaces: Record<string, unknown> };
    expect(stored.marketplaces.team).toMatchObject({ source: { source: "github", repo: "acme/marketplace" }, pinned: { commit: marketCommit } });
    expect((await call("POST", "/api/marketplaces", { source: "acme/marketplace", name: "team" })).body).toMatchObject({ code: "MARKETPLACE_NAME_CONFLICT" });
    expect((await call("GET", "/api/marketplaces")).body.marketplaces.map((m: { name: string }) => m.name)).toEqual(["team"]);
    const listed = await call("GET", "/api/marketplaces/team/plugins");
    expect(listed.body.plugins.map((p: Record<string, unknown>) => [p.name, p.source_type, p.installed])).toEqual([
      ["sales", "relative", false],
      ["brand-voice", "github", false],
      ["slack-by-salesforce", "url", false],
      ["common-room", "git-subdir", false],
      ["apollo", "npm", false],
      ["evil-ext", "url", false],
      ["evil-option", "url", false],
      ["evil-path", "git-subdir", false],
    ]);
    expect((await call("GET", "/api/marketplaces/nope/plugins")).status).toBe(404);
  });

  it("installs a plugin from each source type by { marketplace, plugin }, recording what was fetched", async () => {
    const expected: [string, string, Record<string, unknown>][] = [
      ["sales", "relative", { commit: marketCommit }],
      ["brand-voice", "github", { commit: expect.stringMatching(/^[0-9a-f]{40}$/) }],
      ["slack-by-salesforce", "url", { commit: expect.stringMatching(/^[0-9a-f]{40}$/) }],
      ["common-room", "git-subdir", { commit: expect.stringMatching(/^[0-9a-f]{40}$/) }],
      ["apollo", "npm", { version: "0.1.0", integrity: expect.stringMatching(/^sha512-/) }],
    ];
    for (const [plugin, sourceType, pinned] of expected) {
      const installed = await call("POST", "/api/plugins/install", { marketplace: "team", plugin });
      expect(installed.status, `${plugin}: ${JSON.stringify(installed.body).slice(0, 300)}`).toBe(201);
      expect(installed.body).toMatchObject({ name: plugin, enabled: true, source: { type: "marketplace", marketplaceName: "team", sourceType, pinned } });
      expect(installed.body.skills.length + installed.body.commands.length).toBeGreaterThan(0);
    }
    const slack = await call("GET", "/api/plugins/slack-by-salesforce");
    expect(slack.body.versions).toMatchObject({ marketplace: "team", plugin: "slack-by-salesforce", installed: { commit: expect.any(String) } });
    const agents = path.join(gateway.dir, "plugins", "installed", "slack-by-salesforce", "AGENTS.md");
    expect(fs.lstatSync(agents).isFile()).toBe(true);
    expect((await call("GET", "/api/marketplaces/team/plugins")).body.plugins.filter((p: { installed: boolean }) => p.installed).map((p: { name: string }) => p.name)).toEqual([
      "sales",
      "brand-voice",
      "slack-by-salesforce",
      "common-room",
      "apollo",
    ]);
  });

  it("refuses injection in a source before git runs, and '..' in a path", async () => {
    for (const plugin of ["evil-ext", "evil-option", "evil-path"]) {
      const refused = await call("POST", "/api/plugins/install", { marketplace: "team", plugin });
      expect(refused.status, plugin).toBe(400);
      expect(refused.body.code).toBe("INVALID_SOURCE");
    }
    for (const source of ["--upload-pack=touch /tmp/tt-pwned", "ext::sh -c touch% /tmp/tt-pwned", "-oProxyCommand=x@host:repo", { source: "git", url: "file:///etc" }, { source: "github", repo: "../etc" }, { source: "github", repo: "acme/marketplace", ref: "--output=x" }]) {
      const refused = await call("POST", "/api/marketplaces", { source });
      expect(refused.status, JSON.stringify(source)).toBe(400);
      expect(refused.body.code).toBe("INVALID_SOURCE");
    }
    expect(fs.existsSync("/tmp/tt-pwned")).toBe(false);
    expect(fs.readdirSync(path.join(gateway.dir, "plugins", ".staging"))).toEqual([]);
  });

  it("updates a marketplace to its new commit and a plugin to its new version; an invalid new version is rolled back", async () => {
    const newCommit = git.commit("acme/marketplace", { "sales/.claude-plugin/plugin.json": pluginJson("sales", { version: "1.4.0" }) });
    const updated = await call("POST", "/api/marketplaces/team/update");
    expect(updated.body).toMatchObject({ pinned: { commit: newCommit }, previous: { commit: marketCommit } });
    const before = await call("GET", "/api/plugins/sales");
    expect(before.body.versions).toMatchObject({ installed: { version: "1.3.0", commit: marketCommit }, available: { version: "1.4.0", commit: newCommit }, update_available: true });
    const salesUpdate = await call("POST", "/api/plugins/sales/update");
    expect(salesUpdate.status).toBe(200);
    expect(salesUpdate.body).toMatchObject({ version: "1.4.0", previous: { version: "1.3.0", commit: marketCommit }, versions: { installed: { version: "1.4.0", commit: newCommit }, update_available: false } });

    git.commit("partners/brand-voice", { ".claude-plugin/plugin.json": pluginJson("partner-built/brand-voice", { version: "2.0.0" }) });
    const brand = await call("POST", "/api/plugins/brand-voice/update");
    expect(brand.body).toMatchObject({ version: "2.0.0", enabled: true });
    const installedCommit = brand.body.versions.installed.commit as string;

    git.commit("partners/brand-voice", { ".claude-plugin/plugin.json": "{ not json" });
    const broken = await call("POST", "/api/plugins/brand-voice/update");
    expect(broken.status).toBe(422);
    expect(broken.body.code).toBe("INVALID_PLUGIN");
    const after = await call("GET", "/api/plugins/brand-voice");
    expect(after.body).toMatchObject({ version: "2.0.0", state: "enabled", versions: { installed: { commit: installedCommit } } });
    expect(JSON.parse(fs.readFileSync(path.join(gateway.dir, "plugins", "installed", "brand-voice", ".claude-plugin", "plugin.json"), "utf8"))).toMatchObject({ version: "2.0.0" });
    expect(fs.readdirSync(path.join(gateway.dir, "plugins", ".staging"))).toEqual([]);

    const path_ = await call("POST", "/api/plugins/install", { path: path.join(corpusDir(), "knowledge-work-plugins", "finance") });
    expect(path_.status).toBe(201);
    expect((await call("POST", "/api/plugins/finance/update")).body).toMatchObject({ code: "CONFLICT" });
  });

  it("adds marketplaces from a git URL, a local path and the URL of a marketplace.json; cuts off a source that hangs or sends 1 GB", async () => {
    expect((await call("POST", "/api/marketplaces", { source: `${git.url}/acme/marketplace.git`, name: "by-url" })).body).toMatchObject({ name: "by-url", source: { source: "git" }, pinned: { commit: expect.any(String) } });
    const local = await call("POST", "/api/marketplaces", { source: path.join(corpusDir(), "knowledge-work-plugins") });
    expect(local.body).toMatchObject({ name: "knowledge-work-plugins", source: { source: "directory" }, plugins: 94 });
    const json = JSON.stringify({ name: "remote-only", plugins: [{ name: "apollo", source: { source: "npm", package: "@partners/apollo" } }] });
    const server = http.createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(json));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const flood = await startFloodServer();
    const hanging = await startHangingServer();
    try {
      const byJson = await call("POST", "/api/marketplaces", { source: `http://127.0.0.1:${(server.address() as AddressInfo).port}/marketplace.json` });
      expect(byJson.body).toMatchObject({ name: "remote-only", source: { source: "url" }, pinned: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }, plugins: 1 });
      const tooLarge = await call("POST", "/api/marketplaces", { source: `${flood.url}/marketplace.json` });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.code).toBe("SOURCE_TOO_LARGE");
      expect(flood.bytesSent).toBeLessThan(100 * 1024 * 1024);
      const slow = await call("POST", "/api/marketplaces", { source: `${hanging.url}/repo.git`, name: "slow" });
      expect(slow.status).toBe(504);
      expect(slow.body.code).toBe("SOURCE_TIMEOUT");
    } finally {
      server.close();
      await flood.close();
      await hanging.close();
    }
    expect((await call("DELETE", "/api/marketplaces/by-url")).status).toBe(204);
    expect((await call("GET", "/api/marketplaces")).body.marketplaces.map((m: { name: string }) => m.name)).toEqual(["team", "knowledge-work-plugins", "remote-only"]);
    expect((await call("DELETE", "/api/marketplaces/by-url")).status).toBe(404);
  });
});
