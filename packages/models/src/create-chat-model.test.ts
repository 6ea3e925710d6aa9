import path from "node:path";
import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { isThinktankError, loadConfig, type Config } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createChatModel } from "./create-chat-model.js";
import { describeModelChoice, environmentModels, resolveModel } from "./resolve-model.js";
import { ScriptedChatModel } from "./scripted/scripted-chat-model.js";

const temp = makeTempDir("tt-models-");
afterAll(() => temp.cleanup());
let counter = 0;

function configWith(yaml: string, env: Record<string, string> = {}): Config {
  const dir = path.join(temp.dir, `c${counter++}`);
  writeTree(dir, { "config.yaml": yaml });
  return loadConfig({ cwd: dir, env });
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> | undefined }> {
  try {
    await run();
  } catch (error) {
    if (isThinktankError(error)) return { code: error.code, message: error.message, details: error.details as Record<string, unknown> | undefined };
    throw error;
  }
  throw new Error("expected MODEL_NOT_CONFIGURED");
}

const claude = "    claude:\n      provider: anthropic\n      model: claude-sonnet-4-5\n";

describe("createChatModel", () => {
  it("builds the scripted model with the demo script when no script file is named", async () => {
    const model = await createChatModel(configWith("models:\n  providers:\n    scripted:\n      provider: scripted\n"));
    expect(model).toBeInstanceOf(ScriptedChatModel);
    const answer = await model.invoke([new HumanMessage("hello")]);
    expect(answer.content).toContain("ANTHROPIC_API_KEY");
  });

  it("reads a script file relative to config.yaml", async () => {
    const config = configWith("models:\n  default: demo\n  providers:\n    demo:\n      provider: scripted\n      script: scripts/demo.yaml\n");
    writeTree(path.join(config.base_dir, "scripts"), { "demo.yaml": "rules:\n  - reply: from the file\n" });
    expect((await (await createChatModel(config)).invoke([new HumanMessage("x")])).content).toBe("from the file");
  });

  it("builds Anthropic and OpenAI models with the key from the named variable", async () => {
    const config = configWith(`models:\n  default: claude\n  providers:\n${claude}    gpt:\n      provider: openai\n      model: gpt-4.1\n      api_key_env: MY_OPENAI\n`, {
      ANTHROPIC_API_KEY: "sk-ant-test",
      MY_OPENAI: "sk-test",
    });
    const anthropic = await createChatModel(config);
    expect(anthropic).toBeInstanceOf(ChatAnthropic);
    expect((anthropic as ChatAnthropic).model).toBe("claude-sonnet-4-5");
    const openai = await createChatModel(config, "gpt");
    expect(openai).toBeInstanceOf(ChatOpenAI);
    expect((openai as ChatOpenAI).model).toBe("gpt-4.1");
  });

  it("builds an OpenAI-compatible model for a local server without a key", async () => {
    const config = configWith("models:\n  providers:\n    local:\n      provider: openai-compatible\n      base_url: http://127.0.0.1:11434/v1\n      model: llama3.1\n");
    const model = await createChatModel(config) as ChatOpenAI;
    expect(model).toBeInstanceOf(ChatOpenAI);
    expect(model.model).toBe("llama3.1");
  });

  it("names the environment variable to set when the key is missing", async () => {
    const error = await failure(() => createChatModel(configWith(`models:\n  default: claude\n  providers:\n${claude}`)));
    expect(error.code).toBe("MODEL_NOT_CONFIGURED");
    expect(error.message).toContain("set the environment variable ANTHROPIC_API_KEY");
    expect(error.details).toMatchObject({ variable: "ANTHROPIC_API_KEY" });
    const custom = await failure(() => createChatModel(configWith("models:\n  providers:\n    gpt:\n      provider: openai\n      model: gpt-4.1\n      api_key_env: TEAM_KEY\n")));
    expect(custom.message).toContain("TEAM_KEY (named by models.providers.gpt.api_key_env)");
  });

  it("names the config key when several models are configured without a default, the default is unknown", async () => {
    const several = await failure(() => createChatModel(configWith(`models:\n  providers:\n${claude}    gpt:\n      provider: openai\n      model: gpt-4.1\n    s:\n      provider: scripted\n`)));
    expect(several.message).toContain("set models.default in config.yaml to one of claude, gpt, s");
    const unknown = await failure(() => createChatModel(configWith("models:\n  default: gpt\n  providers:\n    s:\n      provider: scripted\n")));
    expect(unknown.message).toContain("models.default is 'gpt', but models.providers in config.yaml has no entry 'gpt' (configured: s)");
    expect((await failure(() => createChatModel(configWith("models:\n  providers:\n    s:\n      provider: scripted\n"), "nope"))).code).toBe("MODEL_NOT_CONFIGURED");
  });

  describe("with no models.default, a key in the environment chooses", () => {
    const shipped = "models:\n  providers:\n    scripted:\n      provider: scripted\n";

    it("Anthropic's current model when ANTHROPIC_API_KEY is set, even beside OPENAI_API_KEY and a scripted entry", async () => {
      const config = configWith(shipped, { ANTHROPIC_API_KEY: "sk-ant-fake", OPENAI_API_KEY: "sk-fake" });
      const model = await createChatModel(config);
      expect(model).toBeInstanceOf(ChatAnthropic);
      expect((model as ChatAnthropic).model).toBe(environmentModels[0]?.model);
      expect((model as ChatAnthropic).apiKey).toBe("sk-ant-fake");
      expect(resolveModel(config)).toMatchObject({ name: "anthropic", chosenBy: "ANTHROPIC_API_KEY is set" });
      expect(describeModelChoice(config)).toBe(`model: anthropic, anthropic ${environmentModels[0]?.model} (ANTHROPIC_API_KEY is set)`);
    });

    it("OpenAI's current model when only OPENAI_API_KEY is set, with no config.yaml at all", async () => {
      const model = await createChatModel(configWith("log:\n  level: info\n", { OPENAI_API_KEY: "sk-fake", ANTHROPIC_API_KEY: "" }));
      expect(model).toBeInstanceOf(ChatOpenAI);
      expect((model as ChatOpenAI).model).toBe(environmentModels[1]?.model);
    });

    it("a configured entry of that provider over the built-in one", async () => {
      const config = configWith(`models:\n  providers:\n${claude}    gpt:\n      provider: openai\n      model: gpt-4.1\n`, { OPENAI_API_KEY: "sk-fake" });
      expect((await createChatModel(config) as ChatOpenAI).model).toBe("gpt-4.1");
    });

    it("nothing over the only configured model that is not scripted, nor over models.default", async () => {
      const local = "models:\n  providers:\n    local:\n      provider: openai-compatible\n      base_url: http://127.0.0.1:11434/v1\n      model: llama3.1\n";
      expect((await createChatModel(configWith(local, { ANTHROPIC_API_KEY: "sk-ant-fake" })) as ChatOpenAI).model).toBe("llama3.1");
      const pinned = configWith("models:\n  default: scripted\n  providers:\n    scripted:\n      provider: scripted\n", { ANTHROPIC_API_KEY: "sk-ant-fake" });
      expect(await createChatModel(pinned)).toBeInstanceOf(ScriptedChatModel);
    });

    it("the scripted demo when no key is set, configured or not, and the start-up line says so", async () => {
      expect(await createChatModel(configWith(shipped))).toBeInstanceOf(ScriptedChatModel);
      const bare = configWith("log:\n  level: info\n");
      expect(await createChatModel(bare)).toBeInstanceOf(ScriptedChatModel);
      expect(describeModelChoice(bare)).toBe(
        "model: the scripted demo (the built-in demo script), since no ANTHROPIC_API_KEY or OPENAI_API_KEY is set: set one, or models.default, for a real model",
      );
    });
  });

  it("asks for the model name and the base_url when they are missing", async () => {
    expect((await failure(() => createChatModel(configWith("models:\n  providers:\n    c:\n      provider: anthropic\n"), "c"))).message).toContain("set models.providers.c.model");
    const local = await failure(() => createChatModel(configWith("models:\n  providers:\n    l:\n      provider: openai-compatible\n      model: m\n")));
    expect(local.message).toContain("set models.providers.l.base_url");
  });
});
