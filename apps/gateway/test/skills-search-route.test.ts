import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

const skillText = (name: string, description: string): string => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`;

let dir: string;
let cleanup: () => void;
let running: RunningGateway | undefined;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-skills-search-"));
  writeTree(dir, {
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "public:docx": { enabled: false } }, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skillText("pdf", "Fill in and merge PDF forms. Use for any PDF file."),
    "skills/public/docx/SKILL.md": skillText("docx", "Edit Word documents and track changes in them."),
    "skills/custom/slack-gif/SKILL.md": skillText("slack-gif", "Make small animated GIFs that look good in Slack."),
    "incoming/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", version: "1.0.0", description: "Sales work" }),
    "incoming/sales/skills/call-prep/SKILL.md": skillText("call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
  });
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  cleanup();
});

async function start(): Promise<string> {
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  return running.url;
}

const get = async (url: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("GET /api/skills/search over HTTP", () => {
  it("answers identity, one-line description, location and score; finds plugin skills, never disabled ones", async () => {
    const url = await start();
    const install = await fetch(`${url}/api/plugins/install`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ path: path.join(dir, "incoming/sales") }) });
    expect(install.status, await install.text()).toBe(201);

    const prep = await get(`${url}/api/skills/search?q=${encodeURIComponent("get me ready for my call with Acme")}&limit=2`);
    expect(prep.status).toBe(200);
    expect(prep.body.query).toBe("get me ready for my call with Acme");
    expect(prep.body.results).toEqual([
      {
        identity: "plugin:sales:call-prep",
        name: "call-prep",
        description: "Prepare for a sales call: account context, attendees and an agenda.",
        location: "/mnt/skills/plugins/sales/call-prep/SKILL.md",
        score: expect.any(Number),
      },
    ]);
    const gif = await get(`${url}/api/skills/search?q=animated+gif+for+our+slack`);
    expect((gif.body.results as { identity: string; location: string }[])[0]).toMatchObject({ identity: "custom:slack-gif", location: "/mnt/skills/custom/slack-gif/SKILL.md" });
    // public:docx is disabled in the store: not found even by its own words.
    const docx = await get(`${url}/api/skills/search?q=track+changes+in+a+word+document`);
    expect((docx.body.results as { identity: string }[]).map((hit) => hit.identity)).not.toContain("public:docx");

    const disable = await fetch(`${url}/api/plugins/sales`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ enabled: false }) });
    expect(disable.status).toBe(200);
    const after = await get(`${url}/api/skills/search?q=${encodeURIComponent("prepare for a sales call")}`);
    expect((after.body.results as { identity: string }[]).map((hit) => hit.identity)).not.toContain("plugin:sales:call-prep");
  });

  it("refuses a missing or empty q and a limit outside 1..50 with VALIDATION_FAILED", async () => {
    const url = await start();
    for (const query of ["", "?q=", "?q=pdf&limit=0", "?q=pdf&limit=51", "?q=pdf&limit=two", `?q=${"x".repeat(2001)}`]) {
      const answer = await get(`${url}/api/skills/search${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code, query).toBe("VALIDATION_FAILED");
    }
    const fine = await get(`${url}/api/skills/search?q=pdf&limit=50`);
    expect(fine.status).toBe(200);
    expect((fine.body.results as { identity: string }[])[0]?.identity).toBe("public:pdf");
    expect(fs.existsSync(path.join(dir, "skills/public/pdf/SKILL.md"))).toBe(true);
  });
});
