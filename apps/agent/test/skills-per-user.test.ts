// The agent's per-request snapshot per caller: a run's prompt, search_skills, view_skill and
// read_file under /mnt/skills show the run owner's view (their enablement overlay over the
// administrator's defaults, and their own user: skills), never another user's.
import fs from "node:fs";
import path from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { loadConfig, type Config } from "@thinktank/core";
import { userSkillsFolder } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequestProviders } from "../src/providers/agent-request-providers.js";
import { assembleRequest } from "../src/request/prepare-request.js";
import type { RequestInfo, RequestSurface } from "../src/request/request-context.js";
import { threadFolders } from "@thinktank/files";
import { AgentRuntime } from "../src/runtime/agent-runtime.js";

const skill = (name: string, description: string, body = `${name.toUpperCase()}-BODY`) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${body}\n`;

let temp: { dir: string; cleanup: () => void };
let config: Config;
let runtime: AgentRuntime;

beforeAll(async () => {
  temp = makeTempDir("tt-agent-skills-users-");
  fs.chmodSync(temp.dir, 0o755);
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nskills:\n  listing: compact\nsandbox:\n  warm_pool_size: 0\ncode_execution:\n  mode: direct\n",
    "extensions_config.json": JSON.stringify({
      mcpServers: {},
      skills: { "custom:brand-kit": { enabled: false } },
      plugins: {},
      tools: {},
      users: { usr_alice: { skills: { "public:pdf": { enabled: false }, "custom:brand-kit": { enabled: true } } } },
    }),
    "skills/public/pdf/SKILL.md": skill("pdf", "Fill in and merge PDF forms."),
    "skills/custom/brand-kit/SKILL.md": skill("brand-kit", "Apply the house look to slides and posters."),
  });
  const skillsRoot = path.join(temp.dir, "skills");
  writeTree(userSkillsFolder(skillsRoot, "usr_alice"), { "minutes/SKILL.md": skill("minutes", "Turn meeting minutes into action items.", "ALICE-MINUTES-BODY") });
  writeTree(userSkillsFolder(skillsRoot, "usr_bob"), { "ledger/SKILL.md": skill("ledger", "Reconcile the household ledger.", "BOB-LEDGER-BODY") });
  config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
  runtime = new AgentRuntime(config, { tools: false });
  await runtime.start();
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  temp?.cleanup();
});

function request(ownerId: string): RequestInfo {
  return { config, threadId: `t-${ownerId}`, runId: `r-${ownerId}`, ownerId, now: new Date("2026-05-04T09:30:00Z"), folders: threadFolders(config, `t-${ownerId}`) };
}

async function surfaceOf(ownerId: string): Promise<{ surface: RequestSurface; tool: (name: string) => StructuredToolInterface }> {
  const surface = await assembleRequest(request(ownerId), agentRequestProviders(runtime));
  return {
    surface,
    tool: (name) => {
      const found = surface.tools.find((candidate) => candidate.name === name);
      if (!found) throw new Error(`no tool ${name}`);
      return found;
    },
  };
}

/** The tool's answer, or its error's message (a coded tool error is thrown for the graph's tool node to report). */
async function text(tool: StructuredToolInterface, args: Record<string, unknown>): Promise<string> {
  try {
    const result: unknown = await tool.invoke(args);
    return typeof result === "string" ? result : JSON.stringify(result);
  } catch (error) {
    return `error: ${String((error as { code?: string }).code ?? "")} ${(error as Error).message}`;
  }
}

const searched = async (ownerId: string, query: string): Promise<string[]> => {
  const { tool } = await surfaceOf(ownerId);
  const answer = JSON.parse(await text(tool("search_skills"), { query, kind: "skills" })) as { skills?: { identity: string }[] };
  return (answer.skills ?? []).map((hit) => hit.identity);
};

describe("the agent's skills per run owner", () => {
  it("each owner's snapshot: their overlay over the defaults and their own skills; the operator sees the defaults", async () => {
    const identities = async (ownerId: string) => (await runtime.snapshotFor(request(ownerId))).skills.skills.filter((s) => s.enabled).map((s) => s.identity);
    expect(await identities("usr_alice")).toEqual(["custom:brand-kit", "user:minutes"]);
    expect(await identities("usr_bob")).toEqual(["public:pdf", "user:ledger"]);
    expect(await identities("usr_carol")).toEqual(["public:pdf"]);
    expect(await identities("admin")).toEqual(["public:pdf"]);
    // Cheap while nothing changes: the same frozen view for the same owner.
    expect(await runtime.skillsFor("usr_alice")).toBe(await runtime.skillsFor("usr_alice"));
    expect(await runtime.skillsFor("usr_carol")).toBe(await runtime.skillsFor("admin"));
    expect((await runtime.skillsFor("usr_bob")).skills.find((s) => s.identity === "user:ledger")).toMatchObject({ trusted: false, containerPath: "/mnt/skills/user/ledger/SKILL.md" });
  });

  it("search_skills finds only the owner's own skills", async () => {
    expect(await searched("usr_alice", "meeting minutes action items")).toEqual(["user:minutes"]);
    expect(await searched("usr_bob", "meeting minutes action items")).not.toContain("user:minutes");
    expect(await searched("usr_bob", "household ledger")).toEqual(["user:ledger"]);
    expect(await searched("usr_alice", "household ledger")).not.toContain("user:ledger");
  });

  it("view_skill and read_file reach the owner's skills only", async () => {
    const alice = await surfaceOf("usr_alice");
    expect(await text(alice.tool("view_skill"), { name: "user:minutes" })).toContain("Switched to the specialist context");
    expect(await text(alice.tool("read_file"), { path: "/mnt/skills/user/minutes/SKILL.md" })).toContain("ALICE-MINUTES-BODY");
    expect(await alice.surface.surfaceFor?.("user:minutes")).toMatchObject({ skill: "user:minutes" });
    // Alice switched pdf off for herself.
    expect(await text(alice.tool("view_skill"), { name: "pdf" })).toMatch(/SKILL_NOT_FOUND/);

    const bob = await surfaceOf("usr_bob");
    expect(await text(bob.tool("view_skill"), { name: "user:minutes" })).toMatch(/SKILL_NOT_FOUND/);
    expect(await text(bob.tool("view_skill"), { name: "minutes" })).toMatch(/SKILL_NOT_FOUND/);
    expect(await text(bob.tool("read_file"), { path: "/mnt/skills/user/minutes/SKILL.md" })).not.toContain("ALICE-MINUTES-BODY");
    expect(await text(bob.tool("ls"), { path: "/mnt/skills/user" })).not.toContain("minutes");
    expect(await bob.surface.surfaceFor?.("user:minutes")).toBeUndefined();
    expect(await text(bob.tool("read_file"), { path: "/mnt/skills/user/ledger/SKILL.md" })).toContain("BOB-LEDGER-BODY");
  });

  it("a change to one user's overlay or folder shows on their next run and leaves the others' views as they were", async () => {
    const enabledOf = async (ownerId: string) => (await runtime.skillsFor(ownerId)).skills.filter((s) => s.enabled).map((s) => s.identity);
    const bobBefore = await enabledOf("usr_bob");
    const carolBefore = await runtime.skillsFor("usr_carol");
    await runtime.store.update((draft) => {
      draft.users = { ...draft.users, usr_carol: { skills: { "public:pdf": { enabled: false } } } };
    });
    writeTree(userSkillsFolder(path.join(temp.dir, "skills"), "usr_carol"), { "diary/SKILL.md": skill("diary", "Keep a work diary.") });
    await runtime.store.touch();
    const carol = await runtime.skillsFor("usr_carol");
    expect(carol).not.toBe(carolBefore);
    expect(carol.skills.filter((s) => s.enabled).map((s) => s.identity)).toEqual(["user:diary"]);
    expect(await enabledOf("usr_bob")).toEqual(bobBefore);
    expect(await enabledOf("admin")).toEqual(["public:pdf"]);
  });
});
