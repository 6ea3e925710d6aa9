import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway } from "../src/start-gateway.js";
import type { RunningGateway } from "../src/start-gateway.js";

const key = "path-install-links-key-0123456789";
const skillText = (name: string): string => `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\n`;

let dir: string;
let cleanup: () => void;
let running: RunningGateway;
let secret: string;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir("tt-gw-links-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  // The host file sits outside every package folder, on the same file system so it can be hard-linked.
  secret = path.join(dir, "host-secret.txt");
  fs.writeFileSync(secret, "HOST SECRET\n");
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()), THINKTANK_API_KEY: key } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
});
afterEach(async () => {
  await running.close();
  cleanup();
});

/** Every file and folder under `root` (empty when it does not exist). */
function listing(root: string): string[] {
  return fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]).sort() : [];
}

describe("path installs over HTTP refuse hard links", () => {
  it("refuses a skill folder holding a hard link to a host file with 422 ARCHIVE_HARD_LINK, and installs nothing", async () => {
    const folder = path.join(dir, "incoming", "linked");
    writeTree(folder, { "SKILL.md": skillText("linked") });
    fs.linkSync(secret, path.join(folder, "notes.md"));
    const custom = path.join(dir, "skills", "custom");
    const before = listing(custom);

    const refused = await request(running.url).post("/api/skills/install").set("x-api-key", key).send({ path: folder });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "ARCHIVE_HARD_LINK", message: expect.stringContaining('"notes.md" has 2 hard links') });
    expect(listing(custom)).toEqual(before);
    const skills = await request(running.url).get("/api/skills");
    expect((skills.body as { skills: { identity: string }[] }).skills.map((skill) => skill.identity)).not.toContain("custom:linked");

    // The same folder with its own copy of the file installs: the link alone was the reason.
    fs.rmSync(path.join(folder, "notes.md"));
    fs.writeFileSync(path.join(folder, "notes.md"), "own notes\n");
    const installed = await request(running.url).post("/api/skills/install").set("x-api-key", key).send({ path: folder });
    expect(installed.status).toBe(201);
    expect(fs.readFileSync(path.join(custom, "linked", "notes.md"), "utf8")).toBe("own notes\n");
  });

  it("refuses a plugin folder holding a hard link to a host file with 422 ARCHIVE_HARD_LINK, and installs nothing", async () => {
    const folder = path.join(dir, "incoming", "linked-plugin");
    writeTree(folder, { ".claude-plugin/plugin.json": JSON.stringify({ name: "linked-plugin" }) });
    fs.mkdirSync(path.join(folder, "commands"));
    fs.linkSync(secret, path.join(folder, "commands", "leak.md"));

    const refused = await request(running.url).post("/api/plugins/install").set("x-api-key", key).send({ path: folder });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "ARCHIVE_HARD_LINK", message: expect.stringContaining('"commands/leak.md" has 2 hard links') });
    expect(listing(path.join(dir, "plugins", "installed"))).toEqual([]);
    expect(listing(path.join(dir, "plugins", ".staging"))).toEqual([]);
    expect((await request(running.url).get("/api/plugins/linked-plugin")).status).toBe(404);
  });
});
