import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentSettingsDocument, AgentPlugin } from "./agents-snapshot.js";
import { AgentsSnapshotter } from "./agents-snapshotter.js";
import { findAgent } from "./find-agent.js";
import { readAgentPrompt } from "./read-agent-prompt.js";
import { UserAgentViews } from "./user-agent-views.js";
import { userAgentsFolder } from "./agent-sources.js";

const agentText = (name: string, extra = ""): string => `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\nYou are ${name}.\n`;

/** A settings reader over an object the test changes (a new revision on each change, as the store bumps it). */
class Settings {
  revision = 1;
  constructor(public document: AgentSettingsDocument) {}
  set(document: AgentSettingsDocument): void {
    this.document = document;
    this.revision += 1;
  }
  async read() {
    return { document: this.document, revision: this.revision };
  }
}

let temp: { dir: string; cleanup: () => void };
let settings: Settings;
let snapshotter: AgentsSnapshotter;
let views: UserAgentViews;
let plugins: AgentPlugin[];

beforeEach(() => {
  temp = makeTempDir("tt-agents-");
  writeTree(temp.dir, {
    "agents/custom/reviewer.md": agentText("reviewer", "tools: Read, Grep\nmodel: haiku\n"),
    "agents/custom/notes.md": agentText("notes"),
    "plugins/sales/agents/reviewer.md": agentText("reviewer"),
    "plugins/sales/agents/prep.md": agentText("prep"),
  });
  settings = new Settings({});
  plugins = [
    {
      name: "sales",
      root: path.join(temp.dir, "plugins/sales"),
      agents: [
        { name: "prep", file: "agents/prep.md", description: "Prepares calls.", frontmatter: {} },
        { name: "reviewer", file: "agents/reviewer.md", description: "Reviews deals.", frontmatter: {} },
      ],
    },
  ];
  snapshotter = new AgentsSnapshotter({ agentsRoot: path.join(temp.dir, "agents"), settings, plugins: () => plugins });
  views = new UserAgentViews({ snapshotter, settings, agentsRoot: path.join(temp.dir, "agents") });
});

afterEach(() => {
  views.close();
  snapshotter.close();
  temp.cleanup();
});

function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isThinktankError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a ThinktankError");
}

describe("AgentsSnapshotter", () => {
  it("lists the built-in, the plugins' and the project's agents with identities, and keeps the same frozen object while nothing changed", async () => {
    const snapshot = await snapshotter.snapshot();
    expect(snapshot.agents.map((agent) => agent.identity)).toEqual(["builtin:general-purpose", "plugin:sales:prep", "plugin:sales:reviewer", "custom:notes", "custom:reviewer"]);
    expect(snapshot.agents.find((agent) => agent.identity === "custom:reviewer")).toMatchObject({ tools: ["Read", "Grep"], model: "haiku", enabled: true, defaultEnabled: true, file: path.join(temp.dir, "agents/custom/reviewer.md") });
    expect(snapshot.agents.find((agent) => agent.identity === "plugin:sales:prep")).toMatchObject({ plugin: "sales", file: path.join(temp.dir, "plugins/sales/agents/prep.md") });
    expect(Object.isFrozen(snapshot) && Object.isFrozen(snapshot.agents)).toBe(true);
    expect(await snapshotter.snapshot()).toBe(snapshot);
  });

  it("applies agents.<identity>.enabled; a disabled plugin's agents are listed switched off and no overlay turns them on", async () => {
    settings.set({ agents: { "custom:notes": { enabled: false } }, users: { usr_a: { agents: { "plugin:sales:prep": { enabled: true } } } } });
    plugins = [{ ...plugins[0]!, disabledReason: "the plugin 'sales' is disabled" }];
    const snapshot = await snapshotter.snapshot();
    expect(snapshot.agents.find((agent) => agent.identity === "custom:notes")).toMatchObject({ enabled: false, defaultEnabled: false });
    expect(snapshot.agents.find((agent) => agent.identity === "plugin:sales:prep")).toMatchObject({ enabled: false, disabledReason: "the plugin 'sales' is disabled" });
    const view = await views.viewFor("usr_a");
    expect(view.agents.find((agent) => agent.identity === "plugin:sales:prep")?.enabled).toBe(false);
    expect(errorOf(() => findAgent(view, "prep"))).toMatchObject({ code: "AGENT_NOT_FOUND", message: expect.stringContaining("disabled") });
  });

  it("sees a new custom agent after the store's revision changes (an install), and an edited file through the watcher", async () => {
    const first = await snapshotter.snapshot();
    fs.writeFileSync(path.join(temp.dir, "agents/custom/fresh.md"), agentText("fresh"));
    settings.set({});
    const second = await snapshotter.snapshot();
    expect(second).not.toBe(first);
    expect(second.agents.some((agent) => agent.identity === "custom:fresh")).toBe(true);
  });
});

describe("AgentsSnapshotter without a store change", () => {
  it("shows an edited file on the next snapshot (the watcher), re-reading only that file; a folder made later is found", async () => {
    const first = await snapshotter.snapshot();
    fs.writeFileSync(path.join(temp.dir, "agents/custom/notes.md"), agentText("notes", "model: opus\n"));
    const edited = await snapshotter.snapshot();
    expect(edited).not.toBe(first);
    expect(edited.agents.find((agent) => agent.identity === "custom:notes")?.model).toBe("opus");
    expect(edited.agents.find((agent) => agent.identity === "custom:reviewer")?.frontmatter).toBe(first.agents.find((agent) => agent.identity === "custom:reviewer")?.frontmatter);
    fs.rmSync(path.join(temp.dir, "agents/custom/notes.md"));
    expect((await snapshotter.snapshot()).agents.some((agent) => agent.identity === "custom:notes")).toBe(false);

    const later = new AgentsSnapshotter({ agentsRoot: path.join(temp.dir, "later"), settings });
    try {
      const empty = await later.snapshot();
      expect(empty.agents.map((agent) => agent.identity)).toEqual(["builtin:general-purpose"]);
      expect(await later.snapshot()).toBe(empty);
      writeTree(temp.dir, { "later/custom/made.md": agentText("made") });
      expect((await later.snapshot()).agents.map((agent) => agent.identity)).toEqual(["builtin:general-purpose", "custom:made"]);
    } finally {
      later.close();
    }
  });

  it("skips a symbolic link in the project's folder with an error problem (it is never followed)", async () => {
    writeTree(temp.dir, { "outside/secret.md": agentText("secret") });
    fs.symlinkSync(path.join(temp.dir, "outside/secret.md"), path.join(temp.dir, "agents/custom/secret.md"));
    settings.set({});
    const snapshot = await snapshotter.snapshot();
    expect(snapshot.agents.some((agent) => agent.name === "secret")).toBe(false);
    expect(snapshot.problems).toEqual([expect.objectContaining({ severity: "error", file: "custom/secret.md", message: expect.stringContaining("symbolic link") })]);
  });
});

describe("findAgent", () => {
  it("resolves identities, Claude Code's plugin form and unique bare names; says ambiguous and not found with near names", async () => {
    const snapshot = await snapshotter.snapshot();
    expect(findAgent(snapshot, "notes").identity).toBe("custom:notes");
    expect(findAgent(snapshot, "general-purpose").identity).toBe("builtin:general-purpose");
    expect(findAgent(snapshot, "sales:prep").identity).toBe("plugin:sales:prep");
    expect(findAgent(snapshot, "custom:reviewer").identity).toBe("custom:reviewer");
    expect(errorOf(() => findAgent(snapshot, "reviewer"))).toMatchObject({ code: "AGENT_AMBIGUOUS", message: expect.stringContaining("plugin:sales:reviewer, custom:reviewer") });
    expect(errorOf(() => findAgent(snapshot, "reveiwer"))).toMatchObject({ code: "AGENT_NOT_FOUND", message: expect.stringContaining("did you mean plugin:sales:reviewer, custom:reviewer?") });
  });
});

describe("UserAgentViews", () => {
  it("puts a user's overlay and own agents on top; another user never sees them; no overlay gives the shared snapshot itself", async () => {
    writeTree(userAgentsFolder(path.join(temp.dir, "agents"), "usr_a"), { "mine.md": agentText("mine") });
    settings.set({ users: { usr_a: { agents: { "custom:notes": { enabled: false } } } } });
    const shared = await snapshotter.snapshot();
    const mine = await views.viewFor("usr_a");
    expect(mine.agents.find((agent) => agent.identity === "user:mine")).toMatchObject({ source: "user", enabled: true });
    expect(mine.agents.find((agent) => agent.identity === "custom:notes")).toMatchObject({ enabled: false, defaultEnabled: true });
    expect(await views.viewFor("usr_a")).toBe(mine);
    expect(await views.viewFor("usr_b")).toBe(shared);
    expect(errorOf(() => findAgent(shared, "mine")).code).toBe("AGENT_NOT_FOUND");
    expect(await readAgentPrompt(findAgent(mine, "mine"))).toBe("You are mine.");
  });
});
