import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultSkillSources, pluginSkillSource } from "./skill-sources.js";
import { SkillsSnapshotter } from "./skills-snapshotter.js";
import type { SkillProblem } from "./skill-types.js";

const skill = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

let temp: { dir: string; cleanup: () => void };
let store: ExtensionsStore;
let clock: number;
let snapshotter: SkillsSnapshotter | undefined;
let reported: SkillProblem[];

beforeEach(() => {
  temp = makeTempDir("tt-skills-snap-");
  writeTree(temp.dir, {
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skill("pdf"),
    "skills/public/docx/SKILL.md": skill("docx"),
    "skills/custom/.gitkeep": "",
  });
  store = new ExtensionsStore(path.join(temp.dir, "extensions_config.json"));
  clock = 1_000_000;
  reported = [];
});
afterEach(() => {
  snapshotter?.close();
  snapshotter = undefined;
  temp.cleanup();
});

function make(options: { watch?: boolean } = {}): SkillsSnapshotter {
  snapshotter = new SkillsSnapshotter({
    sources: defaultSkillSources(path.join(temp.dir, "skills")),
    settings: store,
    watch: options.watch,
    verifyIntervalMs: 60_000,
    now: () => clock,
    onProblem: (problem) => reported.push(problem),
  });
  return snapshotter;
}

const names = (snapshot: { skills: readonly { identity: string }[] }): string[] => snapshot.skills.map((s) => s.identity);

describe("SkillsSnapshotter", () => {
  it("returns the very same snapshot while nothing changes", async () => {
    const snapshots = make();
    const first = await snapshots.snapshot();
    expect(names(first)).toEqual(["public:docx", "public:pdf"]);
    expect(first.promptSection).toContain("<location>/mnt/skills/public/pdf/SKILL.md</location>");
    expect(first.etag).toBe((await store.read()).etag);
    const again = await snapshots.snapshot();
    expect(again).toBe(first);
    const [a, b] = await Promise.all([snapshots.snapshot(), snapshots.snapshot()]);
    expect(a).toBe(first);
    expect(b).toBe(first);
  });

  it("shows a change on disk on the next snapshot: an edit, a new skill, a removed skill, a replaced folder", async () => {
    const snapshots = make();
    const first = await snapshots.snapshot();
    fs.writeFileSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"), skill("pdf", "Edited description."));
    const edited = await snapshots.snapshot();
    expect(edited).not.toBe(first);
    expect(edited.version).toBe(first.version + 1);
    expect(edited.skills.find((s) => s.name === "pdf")?.description).toBe("Edited description.");
    // Only the edited SKILL.md was read again.
    expect(edited.skills.find((s) => s.name === "docx")?.frontmatter).toBe(first.skills.find((s) => s.name === "docx")?.frontmatter);

    writeTree(temp.dir, { "skills/custom/notes/SKILL.md": skill("notes") });
    expect(names(await snapshots.snapshot())).toEqual(["public:docx", "public:pdf", "custom:notes"]);

    writeTree(temp.dir, { "skills/custom/notes/deeper/inner/SKILL.md": skill("inner") });
    expect(names(await snapshots.snapshot())).toContain("custom:inner");

    fs.rmSync(path.join(temp.dir, "skills/public/docx"), { recursive: true });
    expect(names(await snapshots.snapshot())).toEqual(["public:pdf", "custom:inner", "custom:notes"]);

    // An install with overwrite: the old folder is renamed away, the new one renamed into place.
    writeTree(temp.dir, { "skills/custom/.staging-x/notes/SKILL.md": skill("notes", "Version two.") });
    fs.renameSync(path.join(temp.dir, "skills/custom/notes"), path.join(temp.dir, "skills/custom/.staging-x/old"));
    fs.renameSync(path.join(temp.dir, "skills/custom/.staging-x/notes"), path.join(temp.dir, "skills/custom/notes"));
    const replaced = await snapshots.snapshot();
    expect(names(replaced)).toEqual(["public:pdf", "custom:notes"]);
    expect(replaced.skills.find((s) => s.name === "notes")?.description).toBe("Version two.");
    // The new folder is watched, not the old one.
    fs.writeFileSync(path.join(temp.dir, "skills/custom/notes/SKILL.md"), skill("notes", "Version three."));
    expect((await snapshots.snapshot()).skills.find((s) => s.name === "notes")?.description).toBe("Version three.");
  });

  it("shows a change through the store on the next snapshot", async () => {
    const snapshots = make();
    const first = await snapshots.snapshot();
    await store.update((draft) => {
      draft.skills["public:pdf"] = { enabled: false };
    });
    const next = await snapshots.snapshot();
    expect(next.revision).toBe(first.revision + 1);
    expect(next.skills.find((s) => s.name === "pdf")?.enabled).toBe(false);
    expect(next.promptSection).not.toContain("<name>pdf</name>");
    expect(next.promptSection).toContain("<name>docx</name>");
  });

  it("catches changes no watcher saw at the next verification interval", async () => {
    const snapshots = make();
    await snapshots.snapshot();
    // A write through a hard link outside the watched folders raises no inotify event there.
    const outside = path.join(temp.dir, "outside.md");
    fs.linkSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"), outside);
    fs.writeFileSync(outside, skill("pdf", "Changed behind the watcher's back."));
    // A short "nothing happens" window: were a watch event to come after all, it would have by now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Until then the cached snapshot stands: nothing is walked per request.
    expect((await snapshots.snapshot()).skills.find((s) => s.name === "pdf")?.description).toBe("Does pdf things.");
    clock += 60_000;
    expect((await snapshots.snapshot()).skills.find((s) => s.name === "pdf")?.description).toBe("Changed behind the watcher's back.");
  });

  it("without watchers, walks on every snapshot and still sees every change", async () => {
    const snapshots = make({ watch: false });
    const first = await snapshots.snapshot();
    expect(await snapshots.snapshot()).toBe(first);
    fs.writeFileSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"), skill("pdf", "Edited."));
    expect((await snapshots.snapshot()).skills.find((s) => s.name === "pdf")?.description).toBe("Edited.");
  });

  it("adds and removes sources, and reports each new problem once", async () => {
    writeTree(temp.dir, { "plugins/zoom/skills/sdk/SKILL.md": skill("sdk"), "plugins/zoom/skills/broken/SKILL.md": "---\nname: broken\n---\n" });
    const snapshots = make();
    await snapshots.snapshot();
    snapshots.setSources([...defaultSkillSources(path.join(temp.dir, "skills")), pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills"))]);
    const withPlugin = await snapshots.snapshot();
    expect(names(withPlugin)).toContain("plugin:zoom:sdk");
    expect(withPlugin.skills.find((s) => s.name === "sdk")?.containerPath).toBe("/mnt/skills/plugins/zoom/sdk/SKILL.md");
    expect(withPlugin.problems.map((p) => p.reason)).toEqual(["missing-description"]);
    fs.writeFileSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"), skill("pdf", "Edited."));
    await snapshots.snapshot();
    expect(reported.map((p) => p.reason)).toEqual(["missing-description"]);
    snapshots.setSources(defaultSkillSources(path.join(temp.dir, "skills")));
    const without = await snapshots.snapshot();
    expect(names(without)).toEqual(["public:docx", "public:pdf"]);
    expect(without.problems).toEqual([]);
  });

  it("asks a sources function on every snapshot and follows its answer", async () => {
    writeTree(temp.dir, { "plugins/zoom/skills/sdk/SKILL.md": skill("sdk") });
    let withPlugin = false;
    snapshotter = new SkillsSnapshotter({
      sources: async () => [...defaultSkillSources(path.join(temp.dir, "skills")), ...(withPlugin ? [pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills"))] : [])],
      settings: store,
    });
    const first = await snapshotter.snapshot();
    expect(names(first)).toEqual(["public:docx", "public:pdf"]);
    expect(await snapshotter.snapshot()).toBe(first);
    withPlugin = true;
    expect(names(await snapshotter.snapshot())).toEqual(["public:docx", "public:pdf", "plugin:zoom:sdk"]);
  });

  it("lists a switched-off source's skills as disabled with its reason, out of the prompt and of bare-name settings", async () => {
    writeTree(temp.dir, { "plugins/zoom/skills/sdk/SKILL.md": skill("sdk"), "plugins/zoom/skills/pdf/SKILL.md": skill("pdf") });
    await store.update((draft) => {
      draft.skills.pdf = { enabled: false }; // bare name: still means public:pdf while the plugin is off
    });
    let reason: string | undefined = "the plugin 'zoom' is disabled";
    snapshotter = new SkillsSnapshotter({
      sources: () => [...defaultSkillSources(path.join(temp.dir, "skills")), { ...pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills")), ...(reason ? { disabledReason: reason } : {}) }],
      settings: store,
      onProblem: (problem) => reported.push(problem),
    });
    const off = await snapshotter.snapshot();
    const state = (snapshot: typeof off) => snapshot.skills.map((s) => [s.identity, s.enabled, s.disabledReason]);
    expect(state(off)).toEqual([
      ["public:docx", true, undefined],
      ["public:pdf", false, undefined],
      ["plugin:zoom:pdf", false, "the plugin 'zoom' is disabled"],
      ["plugin:zoom:sdk", false, "the plugin 'zoom' is disabled"],
    ]);
    expect(off.problems).toEqual([]);
    expect(off.promptSection).not.toContain("zoom");
    await expect(snapshotter.resolvePath("/mnt/skills/plugins/zoom/sdk/SKILL.md")).rejects.toMatchObject({ code: "SKILL_NOT_FOUND" });
    expect(await snapshotter.snapshot()).toBe(off);

    reason = undefined; // the plugin is enabled again: the same index, now in use, and the bare name is ambiguous
    const on = await snapshotter.snapshot();
    expect(state(on)).toEqual([
      ["public:docx", true, undefined],
      ["public:pdf", true, undefined],
      ["plugin:zoom:pdf", true, undefined],
      ["plugin:zoom:sdk", true, undefined],
    ]);
    expect(on.problems.map((p) => p.reason)).toEqual(["ambiguous-setting"]);
    expect(on.promptSection).toContain("/mnt/skills/plugins/zoom/sdk/SKILL.md");
  });

  it("gives a trusted source's skills its trust, and follows the source when it changes", async () => {
    writeTree(temp.dir, { "plugins/zoom/skills/sdk/SKILL.md": skill("sdk") });
    let trust: { trusted?: boolean; scriptsApproved?: boolean } = {};
    snapshotter = new SkillsSnapshotter({
      sources: () => [...defaultSkillSources(path.join(temp.dir, "skills")), { ...pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills")), ...trust }],
      settings: store,
    });
    const state = async () => (await snapshotter!.snapshot()).skills.map((s) => [s.identity, s.trusted, s.scriptsApproved]);
    expect(await state()).toEqual([
      ["public:docx", true, false],
      ["public:pdf", true, false],
      ["plugin:zoom:sdk", false, false],
    ]);
    trust = { trusted: true, scriptsApproved: true };
    expect((await state())[2]).toEqual(["plugin:zoom:sdk", true, true]);
    await store.update((draft) => {
      draft.skills["plugin:zoom:sdk"] = { enabled: true, scripts_approved: false };
    });
    expect((await state())[2]).toEqual(["plugin:zoom:sdk", true, false]);
    trust = {};
    expect((await state())[2]).toEqual(["plugin:zoom:sdk", false, false]);
  });

  it("resolves virtual paths against the current snapshot", async () => {
    const snapshots = make();
    expect((await snapshots.resolvePath("/mnt/skills/public/pdf/SKILL.md")).file).toBe(path.join(temp.dir, "skills/public/pdf/SKILL.md"));
    await store.update((draft) => {
      draft.skills.pdf = { enabled: false };
    });
    await expect(snapshots.resolvePath("/mnt/skills/public/pdf/SKILL.md")).rejects.toMatchObject({ code: "SKILL_NOT_FOUND" });
  });
});
