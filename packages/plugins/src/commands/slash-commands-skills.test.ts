import path from "node:path";
import { SkillsSnapshotter, defaultSkillSources } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PluginSnapshotter } from "../snapshot/plugin-snapshotter.js";
import { SlashCommands } from "./slash-commands.js";

const temp = makeTempDir("tt-commands-");
const settings = { document: { skills: { "public:off": { enabled: false }, "plugin:sales:muted": { enabled: false } }, plugins: {} }, revision: 1 };
writeTree(temp.dir, {
  "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes. Use it often.\nargument-hint: \"[topic]\"\n---\nNotes about $ARGUMENTS, first $1.\n",
  "skills/public/quiet/SKILL.md": "---\nname: quiet\ndescription: Model only\nuser-invocable: false\n---\nq\n",
  "skills/public/off/SKILL.md": "---\nname: off\ndescription: Disabled\n---\no\n",
  "skills/custom/start/SKILL.md": "---\nname: start\ndescription: A custom start\n---\nCUSTOM START\n",
  "skills/custom/weekly-report/SKILL.md": "---\nname: Weekly Report Maker\ndescription: Writes the weekly report\n---\nREPORT for $ARGUMENTS\n",
  "skills/custom/manual/SKILL.md": "---\nname: manual\ndescription: Only by hand\ndisable-model-invocation: true\n---\nm\n",
  "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales" }),
  "plugins/installed/sales/commands/call-prep.md": "---\ndescription: Prepare for a call. With details.\nargument-hint: <company>\n---\nPrepare for a call with $1.\n",
  "plugins/installed/sales/skills/start/SKILL.md": "---\nname: start\ndescription: Sales start\n---\nSALES START\n",
  "plugins/installed/sales/skills/lead-score/SKILL.md": "---\nname: Lead Score\ndescription: Scores a lead\n---\nSCORE $1\n",
  "plugins/installed/sales/skills/muted/SKILL.md": "---\nname: muted\ndescription: Disabled plugin skill\n---\nmuted\n",
});
let commands: SlashCommands;
const closers: (() => void)[] = [];

beforeAll(async () => {
  const plugins = new PluginSnapshotter({ pluginsDir: path.join(temp.dir, "plugins"), settings: { read: async () => settings }, env: {}, watch: false });
  const pluginSnapshot = await plugins.snapshot();
  const skills = new SkillsSnapshotter({ sources: [...defaultSkillSources(path.join(temp.dir, "skills")), ...pluginSnapshot.skillSources], settings: { read: async () => settings }, watch: false });
  commands = new SlashCommands(pluginSnapshot.plugins, { skills: await skills.snapshot() });
  closers.push(() => plugins.close(), () => skills.close());
});
afterAll(() => {
  for (const close of closers) close();
  temp.cleanup();
});

describe("SlashCommands with the skills snapshot (the agent's commands)", () => {
  it("lists plugin commands, user-invocable skills (public, custom, plugin), never disabled or hidden ones", () => {
    expect(commands.entries.map((entry) => entry.invocation).sort()).toEqual(["/manual", "/notes", "/sales:call-prep", "/sales:lead-score", "/sales:start", "/start", "/weekly-report-maker"]);
  });

  it("expands a public skill with its arguments and records the command", () => {
    const resolution = commands.resolve("/notes meeting tomorrow");
    expect(resolution).toMatchObject({
      kind: "expanded",
      command: { kind: "skill", name: "notes", invocation: "/notes", identity: "public:notes", typed: "/notes", arguments: { raw: "meeting tomorrow", positional: ["meeting", "tomorrow"] } },
    });
    if (resolution.kind !== "expanded") return;
    expect(resolution.text).toBe("Skill notes (/mnt/skills/public/notes/SKILL.md; its paths are relative to /mnt/skills/public/notes):\n\nNotes about meeting tomorrow, first meeting.");
  });

  it("expands plugin commands by full or (when unique) short name", () => {
    expect(commands.resolve("/sales:call-prep \"Acme Corp\" now")).toMatchObject({ kind: "expanded", text: "Prepare for a call with Acme Corp.", command: { plugin: "sales", typed: "/sales:call-prep" } });
    expect(commands.resolve("/call-prep Acme")).toMatchObject({ kind: "expanded", command: { invocation: "/sales:call-prep", typed: "/call-prep" } });
    expect(commands.resolve("/sales:start")).toMatchObject({ kind: "expanded", command: { identity: "plugin:sales:start" } });
  });

  it("answers ambiguous, unknown, hidden and disabled commands with their code and near matches", () => {
    expect(commands.resolve("/start")).toEqual({ kind: "error", error: { code: "COMMAND_AMBIGUOUS", message: "/start names 2 commands; use one of /start, /sales:start", suggestions: ["/start", "/sales:start"] } });
    expect(commands.resolve("/notse")).toMatchObject({ kind: "error", error: { code: "COMMAND_NOT_FOUND", message: "unknown command /notse; did you mean /notes?", suggestions: ["/notes"] } });
    expect(commands.resolve("/sales:call-perp x")).toMatchObject({ kind: "error", error: { code: "COMMAND_NOT_FOUND", suggestions: ["/sales:call-prep"] } });
    expect(commands.resolve("/quiet")).toMatchObject({ kind: "error", error: { code: "COMMAND_NOT_FOUND", message: "/quiet is a skill marked 'user-invocable: false'; only the model can use it" } });
    expect(commands.resolve("/off")).toMatchObject({ kind: "error", error: { code: "COMMAND_NOT_FOUND" } });
    expect(commands.resolve("/sales:muted")).toMatchObject({ kind: "error", error: { code: "COMMAND_NOT_FOUND" } });
  });

  it("runs a skill whose name holds spaces (loaded with a warning) by its kebab-case name", () => {
    expect(commands.resolve("/weekly-report-maker sales")).toMatchObject({ kind: "expanded", command: { kind: "skill", name: "Weekly Report Maker", invocation: "/weekly-report-maker", identity: "custom:Weekly Report Maker" } });
    const resolution = commands.resolve("/weekly-report-maker sales");
    if (resolution.kind === "expanded") expect(resolution.text).toMatch(/REPORT for sales$/);
    expect(commands.resolve("/sales:lead-score Acme")).toMatchObject({ kind: "expanded", text: expect.stringMatching(/SCORE Acme$/), command: { name: "Lead Score", invocation: "/sales:lead-score" } });
    expect(commands.resolve("/lead-score Acme")).toMatchObject({ kind: "expanded", command: { invocation: "/sales:lead-score", typed: "/lead-score" } });
  });

  it("leaves other messages alone", () => {
    for (const message of ["/usr/bin/env is broken", "please run /notes", "/ notes", "hello"]) expect(commands.resolve(message)).toEqual({ kind: "none" });
  });

  it("renders a compact <slash_commands> section: commands with their first sentence, listed skills by invocation only", () => {
    expect(commands.promptSection()).toBe(
      [
        "<slash_commands>",
        "The user can run these by starting a message with one (you then see the command's instructions instead). Suggest one when it fits what the user wants.",
        "/manual: Only by hand",
        "/sales:call-prep &lt;company&gt;: Prepare for a call.",
        "Skills the user can run the same way (described in <available_skills>): /notes [topic], /weekly-report-maker, /start, /sales:lead-score, /sales:start",
        "</slash_commands>",
      ].join("\n"),
    );
  });
});
