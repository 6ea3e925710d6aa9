// docs/agent-api.md lists every route of the agent server's route table (AgentServer.routes: a
// route added later fails here until the page names it), and names no route the server lacks.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";

const page = fs.readFileSync(fileURLToPath(new URL("../../../docs/agent-api.md", import.meta.url)), "utf8");
const temp = makeTempDir("tt-agent-docs-");
let server: AgentServer;

beforeAll(async () => {
  writeTree(temp.dir, { "config.yaml": "data_dir: data\n", "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }) });
  server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: {} }), { logger: false });
}, 60_000);
afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

/** A route as the page writes it: `GET /threads/:thread_id/files/:folder/<path>` for a trailing `*`. */
const written = (method: string, url: string) => `${method} ${url.replace(/\/\*$/, "/<path>")}`;

describe("docs/agent-api.md", () => {
  it("names every route of the agent server", () => {
    expect(server.routes.length).toBeGreaterThan(50);
    const missing = server.routes.map((route) => written(route.method, route.url)).filter((route) => !page.includes(`\`${route}\``));
    expect(missing).toEqual([]);
  });

  it("names no route the server does not have (the gateway's /api routes it mentions aside)", () => {
    const known = new Set(server.routes.map((route) => written(route.method, route.url)));
    const named = [...page.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`?\s]*)`/g)].map((match) => `${match[1]} ${match[2]}`);
    expect(named.filter((route) => !known.has(route) && !route.includes(" /api/"))).toEqual([]);
  });
});
