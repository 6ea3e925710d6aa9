import fs from "node:fs";
import path from "node:path";
import { buildZip, type ZipEntrySpec } from "@thinktank/core";
import { corpusDir, missingReason, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

interface ExpectedPlugin {
  path: string;
  name: string;
  version: string;
  skills: string[];
  commands: string[];
  agents: string[];
  mcpServers: { name: string; transport: string; emptyUrl?: boolean; typeFieldAbsent?: boolean }[];
  nestedSkillFiles?: { path: string }[];
}

interface Detail {
  name: string;
  version: string;
  enabled: boolean;
  skills: { name: string; file: string; nested: boolean }[];
  commands: { name: string }[];
  agents: { name: string }[];
  servers: { server: string; transport: string; typeFieldAbsent?: boolean; config: { url?: string } }[];
}

const ways = ["marketplace entry", "folder path", "zipped upload"] as const;

/** Every file of a folder as zip entries under `prefix/`. */
function zipEntries(root: string, prefix: string): ZipEntrySpec[] {
  const entries: ZipEntrySpec[] = [];
  const walk = (dir: string, relative: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const child = path.join(dir, entry.name);
      const name = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child, name);
      else entries.push({ name, data: fs.readFileSync(child) });
    }
  };
  walk(root, prefix);
  return entries;
}

/** What expected.json says, in the shape the API answers. */
function summarise(detail: Detail): Omit<ExpectedPlugin, "path" | "nestedSkillFiles"> & { nested: string[] } {
  return {
    name: detail.name,
    version: detail.version,
    skills: detail.skills.filter((s) => !s.nested).map((s) => s.name).sort(),
    nested: detail.skills.filter((s) => s.nested).map((s) => s.file.replace(/^skills\//, "")).sort(),
    commands: detail.commands.map((c) => c.name).sort(),
    agents: detail.agents.map((a) => a.name).sort(),
    mcpServers: detail.servers.map((s) => ({
      name: s.server,
      transport: s.transport,
      ...(s.config.url === "" ? { emptyUrl: true } : {}),
      ...(s.typeFieldAbsent ? { typeFieldAbsent: true } : {}),
    })),
  };
}

describe("the 22 knowledge-work plugins through the API", needs("corpus"), () => {
  // Read while collecting, so only when present (the suite is skipped otherwise).
  const corpus = missingReason("corpus") === undefined ? corpusDir() : "";
  const root = path.join(corpus, "knowledge-work-plugins");
  const expected = corpus ? (JSON.parse(fs.readFileSync(path.join(corpus, "expected.json"), "utf8")).knowledgeWorkPlugins.plugins as ExpectedPlugin[]) : [];
  const gateways = new Map<(typeof ways)[number], TestGateway>();

  beforeAll(async () => {
    for (const way of ways) {
      const gateway = await createTestGateway();
      gateways.set(way, gateway);
      for (const plugin of expected) {
        const request =
          way === "marketplace entry"
            ? { payload: { marketplace: root, plugin: plugin.name } }
            : way === "folder path"
              ? { payload: { path: path.join(root, plugin.path) } }
              : multipartUpload("file", `${path.basename(plugin.path)}.zip`, buildZip(zipEntries(path.join(root, plugin.path), path.basename(plugin.path))));
        const response = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...request });
        if (response.statusCode !== 201) throw new Error(`${way} ${plugin.name}: ${response.statusCode} ${response.body}`);
      }
    }
  }, 300_000);
  afterAll(async () => {
    for (const gateway of gateways.values()) await gateway.close();
  });

  it("has the 22 plugins", () => {
    expect(expected).toHaveLength(22);
  });

  for (const way of ways) {
    it(`lists all 22, enabled, after installing each by ${way}`, async () => {
      const response = await gateways.get(way)!.app.inject({ method: "GET", url: "/api/plugins" });
      const plugins = response.json().plugins as { name: string; state: string }[];
      expect(plugins.map((p) => p.name)).toEqual(expected.map((p) => p.name).sort());
      expect(new Set(plugins.map((p) => p.state))).toEqual(new Set(["enabled"]));
    });

    it(`matches expected.json exactly for every plugin installed by ${way}`, async () => {
      for (const plugin of expected) {
        const response = await gateways.get(way)!.app.inject({ method: "GET", url: `/api/plugins/${plugin.name}` });
        expect(response.statusCode).toBe(200);
        const { path: _path, nestedSkillFiles, ...want } = plugin;
        expect(summarise(response.json() as Detail), `${way}: ${plugin.name}`).toEqual({
          name: want.name,
          version: want.version,
          skills: [...want.skills].sort(),
          nested: (nestedSkillFiles ?? []).map((n) => n.path).sort(),
          commands: [...want.commands].sort(),
          agents: [...want.agents].sort(),
          mcpServers: want.mcpServers,
        });
      }
    });
  }

  it("lists every plugin server on GET /api/mcp/servers: 153, masked, with transports", async () => {
    const response = await gateways.get("folder path")!.app.inject({ method: "GET", url: "/api/mcp/servers" });
    const servers = response.json().servers as { name: string; source: string; transport: string }[];
    expect(servers).toHaveLength(153);
    const transports: Record<string, number> = {};
    for (const server of servers) transports[server.transport] = (transports[server.transport] ?? 0) + 1;
    expect(transports).toEqual({ http: 151, sse: 1, stdio: 1 });
    expect(servers.find((s) => s.name === "small-business:google calendar")).toMatchObject({ source: "plugin:small-business" });
  });
});
