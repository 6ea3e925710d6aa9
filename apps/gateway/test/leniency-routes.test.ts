import fs from "node:fs";
import path from "node:path";
import { copyFromCorpus, needs } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

// Over HTTP: a skill and a plugin Claude Code loads install with warnings in the answer and in GET; strict=true refuses them.
let gateway: TestGateway;
beforeEach(async () => {
  gateway = await createTestGateway();
});
afterEach(async () => gateway.close());

describe("lenient installs over the API", needs("corpus"), () => {
  it("POST /api/skills/install: Anthropic's claude-api skill (a 1,068-character description) installs with a warning; strict=true answers 422", async () => {
    const folder = copyFromCorpus("anthropic-skills/claude-api", path.join(gateway.dir, "claude-api"));
    const strict = await gateway.app.inject({ method: "POST", url: "/api/skills/install?strict=true", payload: { path: folder } });
    expect(strict.statusCode).toBe(422);
    expect(strict.json()).toMatchObject({ code: "INVALID_SKILL", message: expect.stringContaining("description must be at most 1024 characters") });
    const strictBody = await gateway.app.inject({ method: "POST", url: "/api/skills/install", payload: { path: folder, strict: true } });
    expect(strictBody.statusCode).toBe(422);

    const installed = await gateway.app.inject({ method: "POST", url: "/api/skills/install", payload: { path: folder } });
    expect(installed.statusCode).toBe(201);
    expect(installed.json()).toMatchObject({ identity: "custom:claude-api", warnings: [expect.stringMatching(/^description must be at most 1024 characters/)] });
    const got = await gateway.app.inject({ method: "GET", url: "/api/skills/custom:claude-api" });
    expect(got.json().warnings).toEqual(installed.json().warnings);
  });

  it("POST /api/plugins/install: an agent with YAML a strict parser refuses installs with a warning; strict refuses", async () => {
    const root = copyFromCorpus("knowledge-work-plugins/partner-built/brand-voice", path.join(gateway.dir, "brand-voice"));
    const agent = path.join(root, "agents", "quality-assurance.md");
    fs.writeFileSync(agent, fs.readFileSync(agent, "utf8").replace(/^description: >\n(?: {2}.*\n)+/m, "description: Checks content. <example>user: check this</example>\n"));
    const strict = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: root, strict: true } });
    expect(strict.statusCode).toBe(422);
    expect(strict.json()).toMatchObject({ code: "INVALID_PLUGIN" });
    const installed = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: root } });
    expect(installed.statusCode).toBe(201);
    const warning = { severity: "warning", lenient: true, file: "agents/quality-assurance.md", line: 3, message: expect.stringContaining("read line by line") };
    expect(installed.json().warnings).toEqual([warning]);
    const got = await gateway.app.inject({ method: "GET", url: "/api/plugins/brand-voice" });
    expect(got.json().problems).toEqual([warning]);
  });
});
