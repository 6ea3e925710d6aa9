import fs from "node:fs";
import path from "node:path";
import { buildZip, createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway } from "../src/start-gateway.js";
import type { RunningGateway } from "../src/start-gateway.js";

// A YAML alias bomb ("billion laughs") in frontmatter, against the real gateway over HTTP. js-yaml
// shares aliased values, so the file parses at once; before the bounds, everything after it
// (validation, the JSON response, the listing) walked 10^10 values and held the event loop for minutes.

/** 10 levels of 10 aliases each: 10^10 strings once expanded, from about 1 KB of YAML. */
function aliasBomb(name: string): string {
  const lines = ["---", `name: ${name}`, "description: Looks like any other skill."];
  lines.push(`l0: &l0 [${Array.from({ length: 10 }, () => '"lol"').join(", ")}]`);
  for (let level = 1; level < 10; level++) lines.push(`l${level}: &l${level} [${Array.from({ length: 10 }, () => `*l${level - 1}`).join(", ")}]`);
  for (let key = 0; key < 5; key++) lines.push(`k${key}: *l9`);
  return `${lines.join("\n")}\n---\n# ${name}\n`;
}

let dir: string;
let cleanup: () => void;
let gateway: RunningGateway;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir("tt-fm-bomb-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: warn\n");
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  gateway = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
});
afterEach(async () => {
  await gateway.close();
  cleanup();
});

function upload(route: string, fileName: string, zip: Buffer): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([zip], { type: "application/zip" }), fileName);
  return fetch(`${gateway.url}${route}`, { method: "POST", body: form });
}

/** Three health checks sent alongside a request: each must be answered while it is handled. */
async function withHealthChecks(request: Promise<Response>): Promise<{ response: Response; health: number[] }> {
  const checks = Array.from({ length: 3 }, () => fetch(`${gateway.url}/healthz`).then((r) => r.status));
  const [response, ...health] = await Promise.all([request, ...checks]);
  return { response, health };
}

describe("frontmatter alias bombs", () => {
  it("refuses an uploaded skill with 422 FRONTMATTER_TOO_COMPLEX, answering /healthz meanwhile, and keeps nothing", async () => {
    const zip = buildZip([{ name: "bomb/SKILL.md", data: aliasBomb("bomb") }]);
    const { response, health } = await withHealthChecks(upload("/api/skills/install", "bomb.zip", zip));
    expect(health).toEqual([200, 200, 200]);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("FRONTMATTER_TOO_COMPLEX");
    expect(body.message).toMatch(/more than 10000 values/);
    expect(fs.readdirSync(path.join(dir, "skills", "custom"))).toEqual([]);
  }, 10_000);

  it("refuses the same skill installed from a path on the server", async () => {
    writeTree(dir, { "incoming/bomb/SKILL.md": aliasBomb("bomb") });
    const response = await fetch(`${gateway.url}/api/skills/install`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "incoming/bomb" }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "FRONTMATTER_TOO_COMPLEX" });
  }, 10_000);

  it("lists a bomb already in skills/custom as a problem, not a skill, and GET answers 404", async () => {
    writeTree(dir, { "skills/custom/bomb/SKILL.md": aliasBomb("bomb"), "skills/custom/fine/SKILL.md": "---\nname: fine\ndescription: A fine skill.\n---\n" });
    const { response, health } = await withHealthChecks(fetch(`${gateway.url}/api/skills`));
    expect(health).toEqual([200, 200, 200]);
    expect(response.status).toBe(200);
    const list = (await response.json()) as { skills: { identity: string }[]; problems: { reason: string; message: string }[] };
    expect(list.skills.map((skill) => skill.identity)).toEqual(["custom:fine"]);
    expect(list.problems).toEqual([expect.objectContaining({ reason: "invalid-frontmatter", message: expect.stringMatching(/frontmatter is too complex/) })]);
    const one = await fetch(`${gateway.url}/api/skills/bomb`);
    expect(one.status).toBe(404);
    expect(await one.json()).toMatchObject({ code: "SKILL_NOT_FOUND" });
  }, 10_000);

  it.each([
    ["a command", "commands/boom.md"],
    ["an agent", "agents/boom.md"],
    ["a skill", "skills/boom/SKILL.md"],
  ])("refuses a plugin with %s whose frontmatter is a bomb (422 INVALID_PLUGIN naming the file)", async (_label, file) => {
    const zip = buildZip([
      { name: "boomer/.claude-plugin/plugin.json", data: JSON.stringify({ name: "boomer", version: "1.0.0" }) },
      { name: `boomer/${file}`, data: aliasBomb("boom") },
    ]);
    const { response, health } = await withHealthChecks(upload("/api/plugins/install", "boomer.zip", zip));
    expect(health).toEqual([200, 200, 200]);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("INVALID_PLUGIN");
    expect(body.message).toContain(`${file}:`);
    expect(body.message).toMatch(/frontmatter is too complex/);
    expect(fs.readdirSync(path.join(dir, "plugins", "installed"))).toEqual([]);
  }, 10_000);
});
