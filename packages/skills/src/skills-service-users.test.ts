import fs from "node:fs";
import path from "node:path";
import { ThinktankError, buildZip, type ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toSkillJson } from "./skill-json.js";
import { userSkillsFolder } from "./skill-sources.js";
import type { SkillsService, SkillViewer } from "./skills-service.js";
import { codeOf, openSkillsService } from "./test-support/skills-service-fixture.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const archive = (name: string, description?: string) => ({ kind: "archive" as const, data: buildZip([{ name: `${name}/SKILL.md`, data: skillText(name, description) }]) });

const alice: SkillViewer = { id: "usr_a1", role: "user" };
const bob: SkillViewer = { id: "usr_b2", role: "user" };
const admin: SkillViewer = { id: "admin", role: "admin" };

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let service: SkillsService;

beforeEach(() => {
  temp = makeTempDir("tt-skills-users-");
  writeTree(temp.dir, {
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "custom:off": { enabled: false } }, plugins: {}, tools: {}, users: { usr_a1: { note: "kept" } } }),
    "skills/public/pdf/SKILL.md": skillText("pdf"),
    "skills/custom/off/SKILL.md": skillText("off"),
  });
  ({ store, service } = openSkillsService(temp.dir));
});
afterEach(() => {
  service.close();
  temp.cleanup();
});

const enabledOf = async (viewer: SkillViewer, identity: string): Promise<{ enabled: boolean; default_enabled: boolean }> => {
  const { enabled, default_enabled } = toSkillJson(await service.get(identity, undefined, viewer));
  return { enabled, default_enabled };
};

describe("SkillsService per user", () => {
  it("a user's disable changes only their view: other users and the default are untouched", async () => {
    await service.updateSettings("pdf", { enabled: false }, { viewer: alice });
    expect(await enabledOf(alice, "public:pdf")).toEqual({ enabled: false, default_enabled: true });
    expect(await enabledOf(bob, "public:pdf")).toEqual({ enabled: true, default_enabled: true });
    expect(await enabledOf(undefined, "public:pdf")).toEqual({ enabled: true, default_enabled: true });
    expect((await service.list(alice)).promptSection).not.toContain("<name>pdf</name>");
    expect((await service.list(bob)).promptSection).toContain("<name>pdf</name>");
    const onDisk = JSON.parse(fs.readFileSync(store.file, "utf8")) as { skills: Record<string, unknown>; users: Record<string, unknown> };
    expect(onDisk.users.usr_a1).toEqual({ note: "kept", skills: { "public:pdf": { enabled: false } } });
    expect(onDisk.skills["public:pdf"]).toBeUndefined();
    // A user may switch on what the administrator left off, for themselves only.
    await service.updateSettings("custom:off", { enabled: true }, { viewer: alice });
    expect(await enabledOf(alice, "custom:off")).toEqual({ enabled: true, default_enabled: false });
    expect(await enabledOf(bob, "custom:off")).toEqual({ enabled: false, default_enabled: false });
  });

  it("the administrator's change sets the default for every user who made no choice of their own", async () => {
    await service.updateSettings("pdf", { enabled: true }, { viewer: alice });
    await service.updateSettings("pdf", { enabled: false }, { viewer: admin });
    expect(await enabledOf(bob, "public:pdf")).toEqual({ enabled: false, default_enabled: false });
    expect(await enabledOf(alice, "public:pdf")).toEqual({ enabled: true, default_enabled: false });
    expect(await enabledOf(undefined, "public:pdf")).toEqual({ enabled: false, default_enabled: false });
  });

  it("a user may not decide trust or script approval (FORBIDDEN), and nothing is written", async () => {
    const before = fs.readFileSync(store.file, "utf8");
    expect(await codeOf(service.updateSettings("custom:off", { trusted: true }, { viewer: alice }))).toBe("FORBIDDEN");
    expect(await codeOf(service.updateSettings("custom:off", { enabled: true, scriptsApproved: true }, { viewer: alice }))).toBe("FORBIDDEN");
    expect(await codeOf(service.install(archive("mine"), { trusted: true, viewer: alice }))).toBe("FORBIDDEN");
    expect(fs.readFileSync(store.file, "utf8")).toBe(before);
  });

  it("a user's install lands in their own folder as user:<name>, untrusted, seen by nobody else", async () => {
    const skill = await service.install(archive("mine", "Summarises my meeting notes."), { viewer: alice });
    expect(skill).toMatchObject({ identity: "user:mine", category: "user", trusted: false, containerPath: "/mnt/skills/user/mine/SKILL.md" });
    expect(skill.dir).toBe(path.join(userSkillsFolder(path.join(temp.dir, "skills"), "usr_a1"), "mine"));
    expect((await service.list(alice)).skills.map((s) => s.identity)).toEqual(["public:pdf", "custom:off", "user:mine"]);
    expect((await service.search("meeting notes", { viewer: alice })).map((hit) => hit.identity)).toEqual(["user:mine"]);
    for (const viewer of [bob, admin, undefined]) {
      expect((await service.list(viewer)).skills.map((s) => s.identity)).not.toContain("user:mine");
      expect(await service.search("meeting notes", { viewer })).toEqual([]);
      expect(await codeOf(service.get("user:mine", undefined, viewer))).toBe("SKILL_NOT_FOUND");
    }
    // Bob's skill of the same name is his own: no conflict, no overwrite of Alice's.
    await service.install(archive("mine", "Bob's version."), { viewer: bob });
    expect((await service.get("user:mine", undefined, alice)).description).toBe("Summarises my meeting notes.");
    expect((await service.get("user:mine", undefined, bob)).description).toBe("Bob's version.");
    expect(await codeOf(service.install(archive("mine"), { viewer: alice }))).toBe("SKILL_NAME_CONFLICT");
  });

  it("a user cannot change, disable or delete another user's skill, nor delete a shared one", async () => {
    await service.install(archive("mine"), { viewer: alice });
    expect(await codeOf(service.updateSettings("user:mine", { enabled: false }, { viewer: bob }))).toBe("SKILL_NOT_FOUND");
    expect(await codeOf(service.remove("user:mine", { viewer: bob }))).toBe("SKILL_NOT_FOUND");
    expect(await codeOf(service.remove("mine", { category: "user", viewer: bob }))).toBe("SKILL_NOT_FOUND");
    expect(await codeOf(service.remove("custom:off", { viewer: alice }))).toBe("FORBIDDEN");
    expect(await codeOf(service.remove("user:mine", { viewer: admin }))).toBe("SKILL_NOT_FOUND");
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/off/SKILL.md"))).toBe(true);
    // Alice switches hers off, then deletes it: the folder and her choice go.
    await service.updateSettings("user:mine", { enabled: false }, { viewer: alice });
    expect(await enabledOf(alice, "user:mine")).toEqual({ enabled: false, default_enabled: true });
    await service.remove("user:mine", { viewer: alice });
    expect(await codeOf(service.get("user:mine", undefined, alice))).toBe("SKILL_NOT_FOUND");
    expect((await store.read()).document.users?.usr_a1).toEqual({ note: "kept", skills: {} });
  });

  it("a user installs only uploaded archives, never a path on the server", async () => {
    writeTree(temp.dir, { "elsewhere/secret/SKILL.md": skillText("secret") });
    expect(await codeOf(service.install({ kind: "path", path: path.join(temp.dir, "elsewhere/secret") }, { viewer: alice }))).toBe("FORBIDDEN");
    expect(fs.existsSync(path.join(temp.dir, "skills/users"))).toBe(false);
  });

  it("a user id with path characters gets a hashed folder inside skills/users", async () => {
    const sneaky = { id: "jwt:../../custom", role: "user" as const };
    const skill = await service.install(archive("evil"), { viewer: sneaky });
    const folder = userSkillsFolder(path.join(temp.dir, "skills"), sneaky.id);
    expect(path.dirname(folder)).toBe(path.join(temp.dir, "skills/users"));
    expect(path.basename(folder)).toMatch(/^h-[0-9a-f]{40}$/);
    expect(skill.dir).toBe(path.join(folder, "evil"));
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/evil"))).toBe(false);
    expect((await service.list(admin)).skills.map((s) => s.identity)).not.toContain("custom:evil");
  });

  it("a skill name with path tricks never leaves the user's folder", async () => {
    const tricks = [
      buildZip([{ name: "evil/SKILL.md", data: "---\nname: ../../custom/evil\ndescription: Tries to climb out.\n---\n" }]),
      buildZip([{ name: "SKILL.md", data: "---\nname: ../custom/evil\ndescription: No wrapper folder.\n---\n" }]),
      buildZip([{ name: "../custom/evil/SKILL.md", data: skillText("evil") }]),
    ];
    for (const data of tricks) {
      const outcome = await service.install({ kind: "archive", data }, { viewer: alice }).then(
        (skill) => skill.dir,
        (error: unknown) => (error instanceof ThinktankError ? error.code : String(error)),
      );
      if (path.isAbsolute(outcome)) expect(path.dirname(outcome)).toBe(userSkillsFolder(path.join(temp.dir, "skills"), "usr_a1"));
      else expect(outcome).toMatch(/^[A-Z_]+$/);
    }
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/evil"))).toBe(false);
    expect(fs.readdirSync(path.join(temp.dir, "skills"))).toEqual(["custom", "public", "users"]);
    expect((await service.list(admin)).skills.map((s) => s.identity)).toEqual(["public:pdf", "custom:off"]);
  });

  it("forgets a removed user: their folder and their choices go, other users' and other keys stay", async () => {
    await service.install(archive("mine"), { viewer: alice });
    await service.updateSettings("pdf", { enabled: false }, { viewer: alice });
    await service.updateSettings("pdf", { enabled: false }, { viewer: bob });
    expect(await service.forgetUser("usr_a1")).toBe(true);
    expect(fs.existsSync(userSkillsFolder(path.join(temp.dir, "skills"), "usr_a1"))).toBe(false);
    const users = (await store.read()).document.users;
    expect(users?.usr_a1).toEqual({ note: "kept" });
    expect(users?.usr_b2).toEqual({ skills: { "public:pdf": { enabled: false } } });
    expect((await service.list(alice)).skills.map((s) => s.identity)).toEqual(["public:pdf", "custom:off"]);
    expect(await service.forgetUser("usr_a1")).toBe(false);
  });

  it("keeps a user's view object while nothing changes, and rebuilds it when their overlay changes", async () => {
    await service.install(archive("mine"), { viewer: alice });
    const first = await service.list(alice);
    expect(await service.list(alice)).toBe(first);
    expect(await service.list(bob)).toBe(await service.list(undefined));
    await service.updateSettings("pdf", { enabled: false }, { viewer: bob });
    expect(await service.list(alice)).not.toBe(first);
    expect((await service.list(alice)).skills).toHaveLength(3);
  });

  it("refuses a malformed overlay entry at write time (VALIDATION_FAILED), keeping the file", async () => {
    const before = fs.readFileSync(store.file, "utf8");
    const code = await codeOf(
      store.update((draft) => {
        draft.users = { usr_a1: { skills: { "public:pdf": { enabled: "no" } } } } as never;
      }),
    );
    expect(code).toBe("VALIDATION_FAILED");
    expect(fs.readFileSync(store.file, "utf8")).toBe(before);
  });
});
