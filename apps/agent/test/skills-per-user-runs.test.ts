// Runs through the agent server's API with users' keys: each run's prompt lists the skills of the
// user who started it (their overlay over the defaults, their own user: skills), and the operator's
// the defaults.
import fs from "node:fs";
import path from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { loadConfig } from "@thinktank/core";
import { userSkillsFolder } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, inspectPrompt, type AgentServer } from "../src/index.js";

/** Records the system prompt of each call and answers at once. */
class PromptRecorder extends BaseChatModel {
  last = "";
  _llmType(): string {
    return "prompt-recorder";
  }
  override bindTools(): PromptRecorder {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.last = messages[0]?.text ?? "";
    return { generations: [{ text: "ok", message: new AIMessage("ok") }] };
  }
}

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`;

let temp: { dir: string; cleanup: () => void };
let server: AgentServer;
let config: ReturnType<typeof loadConfig>;
const model = new PromptRecorder({});
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  temp = makeTempDir("tt-agent-skills-runs-");
  fs.chmodSync(temp.dir, 0o755);
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\ncode_execution:\n  mode: direct\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skill("pdf", "Fill in and merge PDF forms."),
    "skills/custom/brand-kit/SKILL.md": skill("brand-kit", "Apply the house look to slides."),
  });
  config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
  for (const name of ["alice", "bob"]) {
    const { user, apiKey } = await server.identity.users.create({ name, role: "user" });
    ids[name] = user.id;
    keys[name] = apiKey;
  }
  writeTree(userSkillsFolder(path.join(temp.dir, "skills"), ids.alice as string), { "minutes/SKILL.md": skill("minutes", "Turn meeting minutes into action items.") });
  await server.runtime.store.update((draft) => {
    draft.users = { [ids.alice as string]: { skills: { "public:pdf": { enabled: false } } } };
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

/** One run on a new thread as `key` (none: the local operator of this key-less server); the system prompt the model got. */
async function promptOf(key: string | undefined): Promise<string> {
  const headers = key ? { "x-api-key": key } : {};
  const thread = (await server.app.inject({ method: "POST", url: "/threads", headers, payload: {} })).json() as { thread_id: string };
  model.last = "";
  const waited = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs/wait`, headers, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "hi" }] } } });
  expect(waited.statusCode, waited.body).toBe(200);
  return model.last;
}

describe("runs see their owner's skills", () => {
  it("a user's run lists their own skill and leaves out what they switched off; another user's and the operator's do not", async () => {
    const alice = await promptOf(keys.alice);
    expect(alice).toContain("/mnt/skills/user/minutes/SKILL.md");
    expect(alice).toContain("/mnt/skills/custom/brand-kit/SKILL.md");
    expect(alice).not.toContain("/mnt/skills/public/pdf/SKILL.md");
    for (const other of [await promptOf(keys.bob), await promptOf(undefined)]) {
      expect(other).not.toContain("minutes");
      expect(other).toContain("/mnt/skills/public/pdf/SKILL.md");
    }
  });

  it("thinktank inspect prompt --user shows that user's prompt; without it, the operator's", async () => {
    const alice = (await inspectPrompt(config, { user: ids.alice })).systemPrompt;
    expect(alice).toContain("/mnt/skills/user/minutes/SKILL.md");
    expect(alice).not.toContain("/mnt/skills/public/pdf/SKILL.md");
    const operator = (await inspectPrompt(config)).systemPrompt;
    expect(operator).not.toContain("minutes");
    expect(operator).toContain("/mnt/skills/public/pdf/SKILL.md");
  });
});
