import fs from "node:fs";
import path from "node:path";
import { buildZip, type ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillsService } from "./skills-service.js";
import type { SkillsSnapshotter } from "./skills-snapshotter.js";
import { codeOf, openSkillsService } from "./test-support/skills-service-fixture.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n`;

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let snapshotter: SkillsSnapshotter;
let service: SkillsService;

beforeEach(() => {
  temp = makeTempDir("tt-skills-service-");
  writeTree(temp.dir, {
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "custom:gone": { enabled: false } }, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skillText("pdf"),
    "skills/public/notes/SKILL.md": skillText("notes"),
    "skills/custom/notes/SKILL.md": skillText("notes"),
    "skills/custom/gone/SKILL.md": skillText("gone"),
  });
  ({ store, snapshotter, service } = openSkillsService(temp.dir));
});
afterEach(() => {
  snapshotter.close();
  temp.cleanup();
});

describe("SkillsService", () => {
  it("gets a skill by name, identity, or name and category; an ambiguous name is SKILL_AMBIGUOUS", async () => {
    expect((await service.get("pdf")).identity).toBe("public:pdf");
    expect((await service.get("custom:notes")).identity).toBe("custom:notes");
    expect((await service.get("notes", "custom")).identity).toBe("custom:notes");
    expect(await codeOf(service.get("notes"))).toBe("SKILL_AMBIGUOUS");
    expect(await codeOf(service.get("missing"))).toBe("SKILL_NOT_FOUND");
    expect(await codeOf(service.get("pdf", "custom"))).toBe("SKILL_NOT_FOUND");
  });

  it("enables and disables by identity in extensions_config.json, honouring If-Match", async () => {
    const { etag } = await store.read();
    const result = await service.updateSettings("pdf", { enabled: false }, { ifMatch: etag });
    expect(result.skill.enabled).toBe(false);
    expect(result.etag).not.toBe(etag);
    const onDisk = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { skills: Record<string, unknown> };
    expect(onDisk.skills["public:pdf"]).toEqual({ enabled: false });
    expect((await service.list()).promptSection).not.toContain("<name>pdf</name>");
    expect(await codeOf(service.updateSettings("pdf", { enabled: true }, { ifMatch: etag }))).toBe("PRECONDITION_FAILED");
    expect((await service.get("pdf")).enabled).toBe(false);
    expect((await service.updateSettings("notes", { enabled: false }, { category: "custom" })).skill.identity).toBe("custom:notes");
  });

  it("deletes custom skills with their setting, and refuses public ones", async () => {
    expect(await codeOf(service.remove("pdf"))).toBe("FORBIDDEN");
    expect(fs.existsSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"))).toBe(true);
    await service.remove("gone");
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/gone"))).toBe(false);
    expect((await store.read()).document.skills["custom:gone"]).toBeUndefined();
    expect(await codeOf(service.get("gone"))).toBe("SKILL_NOT_FOUND");
    expect(await codeOf(service.remove("notes"))).toBe("SKILL_AMBIGUOUS");
    await service.remove("notes", { category: "custom" });
    expect(fs.readdirSync(path.join(temp.dir, "skills/custom"))).toEqual([]);
  });

  it("installs, bumps the store revision, and lists the new skill at once", async () => {
    const before = await store.read();
    const skill = await service.install({ kind: "archive", data: buildZip([{ name: "fresh/SKILL.md", data: skillText("fresh") }]) });
    expect(skill).toMatchObject({ identity: "custom:fresh", enabled: true });
    expect((await store.read()).revision).toBe(before.revision + 1);
    expect((await service.list()).skills.map((s) => s.identity)).toContain("custom:fresh");
    expect(await codeOf(service.install({ kind: "archive", data: buildZip([{ name: "fresh/SKILL.md", data: skillText("fresh") }]) }))).toBe("SKILL_NAME_CONFLICT");
  });

  it("keeps a disabled setting when a skill is overwritten", async () => {
    await service.updateSettings("gone", { enabled: false });
    const skill = await service.install({ kind: "archive", data: buildZip([{ name: "gone/SKILL.md", data: skillText("gone", "New.") }]) }, { overwrite: true });
    expect(skill).toMatchObject({ description: "New.", enabled: false });
  });

  it("records trust and approval beside enabled, and refuses to make a public skill untrusted", async () => {
    expect(await service.get("gone")).toMatchObject({ enabled: false, trusted: false, scriptsApproved: false });
    const { skill } = await service.updateSettings("gone", { trusted: true, scriptsApproved: true });
    expect(skill).toMatchObject({ enabled: false, trusted: true, scriptsApproved: true });
    expect((await store.read()).document.skills["custom:gone"]).toEqual({ enabled: false, trusted: true, scripts_approved: true });
    // A new entry keeps what applied without it: adding trust never switches a skill on or off.
    await store.update((draft) => {
      draft.skills.pdf = { enabled: false };
    });
    expect((await service.updateSettings("public:pdf", { scriptsApproved: true })).skill).toMatchObject({ enabled: false, trusted: true, scriptsApproved: true });
    expect(await codeOf(service.updateSettings("pdf", { trusted: false }))).toBe("FORBIDDEN");
    expect((await service.get("pdf")).trusted).toBe(true);
  });

  it("installs untrusted unless asked; installing again drops the earlier trust and approval", async () => {
    const archive = (description: string) => ({ kind: "archive" as const, data: buildZip([{ name: "tool/SKILL.md", data: skillText("tool", description) }]) });
    expect(await service.install(archive("One."))).toMatchObject({ identity: "custom:tool", trusted: false, scriptsApproved: false });
    expect((await store.read()).document.skills["custom:tool"]).toBeUndefined();
    await service.updateSettings("tool", { enabled: false, scriptsApproved: true });
    expect(await service.install(archive("Two."), { overwrite: true, trusted: true })).toMatchObject({ description: "Two.", enabled: false, trusted: true, scriptsApproved: false });
    expect((await store.read()).document.skills["custom:tool"]).toEqual({ enabled: false, trusted: true });
    expect(await service.install(archive("Three."), { overwrite: true })).toMatchObject({ description: "Three.", enabled: false, trusted: false });
    expect((await store.read()).document.skills["custom:tool"]).toEqual({ enabled: false });
  });

  it("refuses to install a name a nested custom skill already uses", async () => {
    writeTree(temp.dir, { "skills/custom/group/nested/SKILL.md": skillText("nested") });
    expect(await codeOf(service.install({ kind: "archive", data: buildZip([{ name: "nested/SKILL.md", data: skillText("nested") }]) }))).toBe("SKILL_NAME_CONFLICT");
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/nested"))).toBe(false);
  });
});
