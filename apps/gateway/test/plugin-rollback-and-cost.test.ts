import fs from "node:fs";
import path from "node:path";
import { writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

// The console's plugin and skill views over HTTP: a marketplace entry previewed before install
// (what it brings, its projected context cost), install, update with the version change, rollback
// and its undo, removal; a skill's body, files and context cost.
let gateway: TestGateway;
let market: string;

/** An answer body as JSON.parse gives it (tests read its fields directly). */
type ParsedJson = ReturnType<typeof JSON.parse>;

async function call(method: "GET" | "POST" | "DELETE", url: string, payload?: unknown): Promise<{ status: number; body: ParsedJson }> {
  const response = await gateway.app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: response.statusCode, body: response.body ? (response.json() as ParsedJson) : {} };
}

function writeNotesPlugin(version: string, description: string): void {
  writeTree(market, {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "local", plugins: [{ name: "notes", source: "./notes", description: "Team notes" }, { name: "far", source: { source: "github", repo: "acme/far" } }] }),
    "notes/.claude-plugin/plugin.json": JSON.stringify({ name: "notes", version, description: "Notes <b>bold</b>" }),
    "notes/skills/summarize/SKILL.md": `---\nname: summarize\ndescription: ${description}\n---\n# Summarize\n\nRead the notes, then summarize them.\n`,
    "notes/skills/summarize/tools.json": JSON.stringify({ tools: [{ name: "count_words", description: "Count words", runtime: "python", script: "count.py", input_schema: { type: "object" } }] }),
    "notes/skills/summarize/scripts/count.py": "print(1)\n",
    "notes/commands/today.md": "---\ndescription: Write today's note.\n---\nWrite it.\n",
    "notes/agents/filer.md": "---\nname: filer\ndescription: Files notes into folders.\n---\nYou file notes.\n",
  });
}

describe("plugin rollback, previews and context costs", () => {
  beforeAll(async () => {
    gateway = await createTestGateway({ configYaml: "log:\n  level: warn\n" });
    market = path.join(gateway.dir, "market");
    writeNotesPlugin("1.0.0", "Summarize meeting notes into decisions and actions.");
  });
  afterAll(async () => gateway?.close());

  it("previews a marketplace entry before install: what it brings and its projected cost; a remote source says it is fetched at install", async () => {
    expect((await call("POST", "/api/marketplaces", { source: market, name: "local" })).status).toBe(201);
    const preview = await call("GET", "/api/marketplaces/local/plugins/notes");
    expect(preview.status).toBe(200);
    expect(preview.body.entry).toMatchObject({ name: "notes", installed: false });
    expect(preview.body.preview).toMatchObject({ name: "notes", version: "1.0.0", trusted: false, skills: [{ name: "summarize" }], commands: [{ invocation: "/notes:today" }], agents: [{ name: "filer" }] });
    expect(preview.body.preview.script_tools).toMatchObject([{ name: "count_words", trusted: false, sandboxed: true }]);
    const cost = preview.body.preview.context_cost;
    expect(cost.full.skills).toBeGreaterThan(10);
    expect(cost.full.commands).toBeGreaterThan(3);
    expect(cost.full.agents).toBeGreaterThan(3);
    expect(cost.full.tokens).toBe(cost.full.skills + cost.full.commands + cost.full.agents);
    expect(cost.compact.tokens).toBeGreaterThan(0);
    expect(cost.compact.tokens).toBeLessThan(cost.full.tokens);
    expect((await call("GET", "/api/marketplaces/local/plugins/far")).body).toMatchObject({ entry: { name: "far", source_type: "github" }, note: expect.stringContaining("fetched at install") });
    expect((await call("GET", "/api/marketplaces/local/plugins/nope")).status).toBe(404);
    // Nothing was installed or copied by looking.
    expect(fs.existsSync(path.join(gateway.dir, "plugins", "installed", "notes"))).toBe(false);
  });

  it("installs, updates with the version change, rolls back, undoes the rollback, and removes the kept version with the plugin", async () => {
    expect((await call("POST", "/api/plugins/install", { marketplace: "local", plugin: "notes" })).status).toBe(201);
    const installed = await call("GET", "/api/plugins/notes");
    expect(installed.body).toMatchObject({ version: "1.0.0", context_cost: { full: { tokens: expect.any(Number) } } });
    expect(installed.body.rollback).toBeUndefined();
    expect((await call("POST", "/api/plugins/notes/rollback")).body).toMatchObject({ code: "CONFLICT" });

    writeNotesPlugin("2.0.0", "Summarize meeting notes into decisions, owners and actions.");
    expect((await call("POST", "/api/marketplaces/local/update")).status).toBe(200);
    const updated = await call("POST", "/api/plugins/notes/update");
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: "2.0.0", previous: { version: "1.0.0" } });
    expect((await call("GET", "/api/plugins/notes")).body).toMatchObject({ version: "2.0.0", rollback: { version: "1.0.0" } });

    const back = await call("POST", "/api/plugins/notes/rollback");
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ version: "1.0.0", previous: { version: "2.0.0" }, rollback: { version: "2.0.0" } });
    expect((await call("GET", "/api/skills/plugin:notes:summarize")).body.description).toBe("Summarize meeting notes into decisions and actions.");
    // The marketplace record came back too: the plugin is 1.0.0 with 2.0.0 available.
    expect((await call("GET", "/api/plugins/notes")).body.versions).toMatchObject({ installed: { version: "1.0.0" }, available: { version: "2.0.0" }, update_available: true });

    const forward = await call("POST", "/api/plugins/notes/rollback");
    expect(forward.body).toMatchObject({ version: "2.0.0", previous: { version: "1.0.0" } });

    expect((await call("DELETE", "/api/plugins/notes")).status).toBe(204);
    expect(fs.existsSync(path.join(gateway.dir, "plugins", "previous", "notes"))).toBe(false);
    expect(fs.readdirSync(path.join(gateway.dir, "plugins", ".staging"))).toEqual([]);
  });

  it("answers a skill's body, files and context cost; links are listed, not followed", async () => {
    const folder = path.join(gateway.dir, "skills", "custom", "hostile");
    writeTree(folder, { "SKILL.md": "---\nname: hostile\ndescription: \"<img src=x onerror=alert(1)> \\u202Eevil\"\n---\n# Title\n\n<script>alert(1)</script>\n", "references/guide.md": "guide" });
    fs.symlinkSync("/etc/passwd", path.join(folder, "passwd"));
    const content = await call("GET", "/api/skills/custom:hostile/content");
    expect(content.status).toBe(200);
    expect(content.body).toMatchObject({ identity: "custom:hostile", body_truncated: false, files_truncated: false });
    expect(content.body.body).toContain("<script>alert(1)</script>");
    expect(content.body.files).toEqual([
      { path: "SKILL.md", kind: "file", bytes: expect.any(Number) },
      { path: "passwd", kind: "link", bytes: "/etc/passwd".length },
      { path: "references/guide.md", kind: "file", bytes: 5 },
    ]);
    expect(content.body.context_cost).toMatchObject({ full: { skills: expect.any(Number), commands: 0, agents: 0 }, compact: { tokens: 0 }, body_tokens: expect.any(Number) });
    expect(content.body.context_cost.full.skills).toBeGreaterThan(content.body.context_cost.compact.offered_tokens - 1);
    expect((await call("GET", "/api/skills/custom:nope/content")).status).toBe(404);
  });
});
