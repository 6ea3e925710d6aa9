import { tool } from "@langchain/core/tools";
import { isThinktankError, loadConfig } from "@thinktank/core";
import { ScriptedChatModel } from "@thinktank/models";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { prepareRequest } from "./prepare-request.js";
import type { RequestInfo, RequestProvider } from "./request-context.js";

const temp = makeTempDir("tt-prepare-");
afterAll(() => temp.cleanup());
writeTree(temp.dir, { "config.yaml": "models:\n  providers:\n    s:\n      provider: scripted\n" });
const config = loadConfig({ cwd: temp.dir, env: {} });
const info: RequestInfo = { config, threadId: "t", runId: "r", ownerId: "admin", now: new Date("2026-05-04T12:00:00Z"), folders: { workspace: temp.dir, uploads: temp.dir, outputs: temp.dir } };
const noop = (name: string) => tool(async () => name, { name, description: name, schema: { type: "object", properties: {} } });

describe("prepareRequest", () => {
  it("orders prompt sections, keeps the first tool of a name, and ends with the environment", async () => {
    const providers: RequestProvider[] = [
      { name: "late", contribute: () => ({ sections: [{ id: "late", text: "LATE", order: 500 }], tools: [noop("ls")] }) },
      { name: "early", contribute: async () => ({ sections: [{ id: "skills", text: "<skill_system>x</skill_system>", order: 10 }], tools: [noop("ls"), noop("view_skill")] }) },
    ];
    const context = await prepareRequest(info, providers);
    expect(context.model).toBeInstanceOf(ScriptedChatModel);
    expect(context.modelName).toBe("s");
    expect(context.tools.map((t) => t.name)).toEqual(["ls", "view_skill"]);
    expect(await context.tools[0]?.invoke({})).toBe("ls");
    const prompt = context.systemPrompt;
    expect(prompt.indexOf("You are Thinktank")).toBe(0);
    expect(prompt.indexOf("<skill_system>")).toBeLessThan(prompt.indexOf("LATE"));
    expect(prompt.endsWith("Current date: 2026-05-04.")).toBe(true);
  });

  it("throws MODEL_NOT_CONFIGURED before asking any provider", async () => {
    writeTree(temp.dir, { "other/config.yaml": "models:\n  default: c\n  providers:\n    c:\n      provider: anthropic\n      model: m\n" });
    const badConfig = loadConfig({ cwd: `${temp.dir}/other`, env: {} });
    let asked = false;
    const provider: RequestProvider = { name: "p", contribute: () => ((asked = true), {}) };
    const error = await prepareRequest({ ...info, config: badConfig }, [provider]).catch((e: unknown) => e);
    expect(isThinktankError(error) && error.code).toBe("MODEL_NOT_CONFIGURED");
    expect(asked).toBe(false);
  });
});
